//===- PosencOps.h - posenc operations --------------------------*- C++ -*-===//

#ifndef POSENC_DIALECT_POSENC_IR_POSENCOPS_H
#define POSENC_DIALECT_POSENC_IR_POSENCOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "posenc/Dialect/Posenc/IR/PosencAttrs.h"
#include "posenc/Dialect/Posenc/IR/PosencDialect.h"

#define GET_OP_CLASSES
#include "posenc/Dialect/Posenc/IR/PosencOps.h.inc"

#endif // POSENC_DIALECT_POSENC_IR_POSENCOPS_H
