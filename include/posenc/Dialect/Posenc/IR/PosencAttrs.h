//===- PosencAttrs.h - posenc attributes and enums --------------*- C++ -*-===//

#ifndef POSENC_DIALECT_POSENC_IR_POSENCATTRS_H
#define POSENC_DIALECT_POSENC_IR_POSENCATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include <optional>

#include "posenc/Dialect/Posenc/IR/PosencEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "posenc/Dialect/Posenc/IR/PosencAttrs.h.inc"

#endif // POSENC_DIALECT_POSENC_IR_POSENCATTRS_H
