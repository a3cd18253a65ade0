//===- PosencDialect.td - posenc dialect definition --------*- tablegen -*-===//
//
// The posenc dialect: position encodings of transformer attention.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_DIALECT_POSENC_IR_POSENCDIALECT_TD
#define POSENC_DIALECT_POSENC_IR_POSENCDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Posenc_Dialect : Dialect {
  let name = "posenc";
  let cppNamespace = "::posenc";
  let summary = "Position encodings of transformer attention";
  let description = [{
    The `posenc` dialect models the position encodings used by transformer
    attention as typed tensor operations: the absolute sinusoidal table
    (`posenc.sinusoidal`), rotary position embeddings with their scaling
    family (`posenc.rope`), ALiBi biases (`posenc.alibi_bias`), scaled
    dot-product attention (`posenc.attention`, the fusion target) and Shaw-style
    relative position attention (`posenc.rel_pos_attention`).

    The semantics of every op is fixed by `docs/spec.md` and repeated in
    each op's description below. Every op has a reference lowering to `linalg`
    (`--posenc-to-linalg`); element types f16 and bf16 are computed with f32
    internal arithmetic.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

class Posenc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Posenc_Dialect, mnemonic, traits>;

class Posenc_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Posenc_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // POSENC_DIALECT_POSENC_IR_POSENCDIALECT_TD
