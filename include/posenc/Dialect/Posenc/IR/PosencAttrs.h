//===- PosencAttrs.h - posenc attributes and enums --------------*- C++ -*-===//

#ifndef POSENC_DIALECT_POSENC_IR_POSENCATTRS_H
#define POSENC_DIALECT_POSENC_IR_POSENCATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include <optional>

#include "posenc/Dialect/Posenc/IR/PosencEnums.h.inc"

namespace posenc {
/// Parser and printer of an f64 attribute parameter written as a float
/// literal (Posenc_F64Parameter in PosencAttrs.td).
mlir::FailureOr<llvm::APFloat> parseF64Parameter(mlir::AsmParser &parser);
void printF64Parameter(mlir::AsmPrinter &printer, const llvm::APFloat &value);
} // namespace posenc

#define GET_ATTRDEF_CLASSES
#include "posenc/Dialect/Posenc/IR/PosencAttrs.h.inc"

#endif // POSENC_DIALECT_POSENC_IR_POSENCATTRS_H
