//===- PosencDialect.h - posenc dialect -------------------------*- C++ -*-===//
//
// The posenc dialect: position encodings of transformer attention.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_DIALECT_POSENC_IR_POSENCDIALECT_H
#define POSENC_DIALECT_POSENC_IR_POSENCDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "posenc/Dialect/Posenc/IR/PosencDialect.h.inc"

#endif // POSENC_DIALECT_POSENC_IR_POSENCDIALECT_H
