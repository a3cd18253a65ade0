//===- TargetVectorWidth.h - vector width of the target CPU -----*- C++ -*-===//
//
// The CPU lowering sizes its register tiles for the vector registers of the
// machine the code will run on: AVX-512 hosts have 32 registers of 512 bits,
// AVX2-only hosts 16 of 256 bits. The width comes from the host (LLVM's
// sys::getHostCPUFeatures) unless a pipeline option names the target's
// features (cross-compiling, or testing the AVX2 code on an AVX-512 host).
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_CONVERSION_TARGETVECTORWIDTH_H
#define POSENC_CONVERSION_TARGETVECTORWIDTH_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace posenc {

/// The host CPU's features as an LLVM target-features string
/// ("+avx2,+fma,-avx512f,..."), from llvm::sys::getHostCPUFeatures.
std::string getHostCPUFeatures();

/// The widest f32 vector register of an x86 CPU with `features` (an LLVM
/// target-features list, comma separated, later entries overriding earlier
/// ones), in bits: 512 with avx512f, 256 with avx, 128 otherwise.
int64_t getVectorBitsForFeatures(llvm::StringRef features);

/// getVectorBitsForFeatures(getHostCPUFeatures()).
int64_t getHostVectorBits();

/// A pass option's vector width: `requested` when positive, else the
/// host's (getHostVectorBits).
int64_t resolveVectorBits(int64_t requested);

/// The module attribute (a string of LLVM target features) that the CPU
/// pipeline sets when its `target-features` option is given; the C API's
/// JIT applies it on top of the host CPU's features.
inline constexpr llvm::StringLiteral kTargetFeaturesAttrName =
    "posenc.target_features";

} // namespace posenc

#endif // POSENC_CONVERSION_TARGETVECTORWIDTH_H
