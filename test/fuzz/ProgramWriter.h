//===- ProgramWriter.h - structure-aware posenc programs for fuzzing -*- C++ -*-===//
//
// Turns fuzzer bytes into the text of one posenc program: a func.func whose
// body is a posenc op (or a small attention graph) with random shapes,
// element types, layouts and attribute values, extremes included (zero and
// huge dims, NaN/inf/negative bases and factors, rotary_dim 0, num_heads 1
// and 2^20). Most programs are well-formed; some are deliberately not (a
// wrong dim, an odd rotary_dim), so that verifiers see near misses too.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_TEST_FUZZ_PROGRAMWRITER_H
#define POSENC_TEST_FUZZ_PROGRAMWRITER_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace posenc::fuzz {

/// The MLIR text of a module with one function, drawn from `data`. The same
/// bytes always give the same program.
std::string writeProgram(const uint8_t *data, size_t size);

} // namespace posenc::fuzz

#endif // POSENC_TEST_FUZZ_PROGRAMWRITER_H
