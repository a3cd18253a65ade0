//===- naive_decode.cpp - the straightforward C++ decode baseline ---------===//
//
// What one writes by hand for decode (a few new query rows against a long
// KV cache) without a compiler: for every query head and row, the scores
// row, its softmax, then P.V, with the key/value elements widened to f32 as
// they are read. Query heads are split over OpenMP threads; a query head
// reads K/V head h / (Hq/Hkv), so heads of one group read the same cache
// rows (each from memory or from whatever cache level still holds them).
// Compiled -O3 -march=native -fopenmp so the dot products auto-vectorize
// (and the f16 loads become F16C/AVX-512 conversions). It is the "naive"
// column of the benchmark's decode cases, not a reference: correctness is
// checked against numpy.
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

/// The three K/V element types of the benchmark, widened to f32.
inline float widen(float x) { return x; }
inline float widen(_Float16 x) { return static_cast<float>(x); }
struct BF16Bits {
  uint16_t bits;
};
inline float widen(BF16Bits x) {
  uint32_t wide = static_cast<uint32_t>(x.bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof(f));
  return f;
}

/// out [hq, sq, d] = attention(q [hq, sq, d], k/v [hkv, sk, d]), the queries
/// the last sq positions (causal bottom-right alignment when `causal`).
template <typename KV>
void decode(const float *q, const KV *k, const KV *v, float *out, int64_t hq,
            int64_t hkv, int64_t sq, int64_t sk, int64_t d, bool causal,
            int threads) {
  int64_t group = hq / hkv;
  float scale = 1.0f / std::sqrt(static_cast<float>(d));
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> scores(sk), acc(d);
#pragma omp for schedule(static)
    for (int64_t h = 0; h < hq; ++h) {
      const KV *kh = k + (h / group) * sk * d;
      const KV *vh = v + (h / group) * sk * d;
      for (int64_t i = 0; i < sq; ++i) {
        const float *qi = q + (h * sq + i) * d;
        int64_t keys = causal ? sk - sq + i + 1 : sk;
        float mx = -INFINITY;
        for (int64_t j = 0; j < keys; ++j) {
          float dot = 0;
          for (int64_t x = 0; x < d; ++x)
            dot += qi[x] * widen(kh[j * d + x]);
          scores[j] = dot * scale;
          mx = std::max(mx, scores[j]);
        }
        float sum = 0;
        for (int64_t j = 0; j < keys; ++j) {
          scores[j] = std::exp(scores[j] - mx);
          sum += scores[j];
        }
        for (int64_t x = 0; x < d; ++x)
          acc[x] = 0;
        for (int64_t j = 0; j < keys; ++j) {
          float p = scores[j] / sum;
          for (int64_t x = 0; x < d; ++x)
            acc[x] += p * widen(vh[j * d + x]);
        }
        for (int64_t x = 0; x < d; ++x)
          out[(h * sq + i) * d + x] = acc[x];
      }
    }
  }
}

} // namespace

extern "C" {

/// Decode attention for one sequence: q/out f32 [hq, sq, d], k/v [hkv, sk,
/// d] of `kv_type` 0 = f32, 1 = f16, 2 = bf16 (bit patterns). Returns 0, or
/// -1 for an unknown kv_type.
int posenc_naive_decode(const float *q, const void *k, const void *v,
                        float *out, int64_t hq, int64_t hkv, int64_t sq,
                        int64_t sk, int64_t d, int causal, int kv_type,
                        int threads) {
  switch (kv_type) {
  case 0:
    decode(q, static_cast<const float *>(k), static_cast<const float *>(v), out,
           hq, hkv, sq, sk, d, causal, threads);
    return 0;
  case 1:
    decode(q, static_cast<const _Float16 *>(k),
           static_cast<const _Float16 *>(v), out, hq, hkv, sq, sk, d, causal,
           threads);
    return 0;
  case 2:
    decode(q, static_cast<const BF16Bits *>(k),
           static_cast<const BF16Bits *>(v), out, hq, hkv, sq, sk, d, causal,
           threads);
    return 0;
  }
  return -1;
}

} // extern "C"
