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

#include <string>

namespace posenc::detail {
/// `v` as the shortest decimal that reads back as `v` ("1", "0.5", "500000",
/// "inf", "nan"), so that verifier and parser diagnostics show a value as it
/// was written rather than "1.000000e+00".
std::string formatNumber(double v);
} // namespace posenc::detail

#endif // POSENC_DIALECT_POSENC_IR_POSENCDIALECT_H
