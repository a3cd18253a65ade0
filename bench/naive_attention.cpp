//===- naive_attention.cpp - the straightforward C++ baseline -------------===//
//
// What one writes by hand without a compiler: RoPE applied to copies of Q and
// K, then causal attention one query row at a time (scores row, softmax, P.V),
// heads split over threads. Compiled -O3 -march=native so the inner dot
// products auto-vectorize. It is the "straightforward C++ loop" column of the
// benchmark, not a reference: correctness is checked against numpy.
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

namespace {

void ropeHalf(float *x, const int32_t *pos, int64_t s, int64_t d,
              double base) {
  int64_t half = d / 2;
  std::vector<float> inv(half);
  for (int64_t p = 0; p < half; ++p)
    inv[p] = static_cast<float>(std::pow(base, -2.0 * p / d));
  for (int64_t i = 0; i < s; ++i) {
    float *row = x + i * d;
    for (int64_t p = 0; p < half; ++p) {
      float theta = static_cast<float>(pos[i]) * inv[p];
      float c = std::cos(theta), sn = std::sin(theta);
      float a = row[p], b = row[p + half];
      row[p] = a * c - b * sn;
      row[p + half] = a * sn + b * c;
    }
  }
}

} // namespace

extern "C" {

/// out[h] = causal_attention(rope(q[h]), rope(k[h / group]), v[h / group])
/// for q [hq, s, d], k/v [hkv, s, d], all f32, half-layout RoPE (skipped when
/// base <= 0), alibi slopes added when `slopes` is non-null.
void posenc_naive_attention(const float *q, const float *k, const float *v,
                            const int32_t *pos, float *out, int64_t hq,
                            int64_t hkv, int64_t s, int64_t d, double base,
                            const float *slopes, int threads) {
  int64_t group = hq / hkv;
  float scale = 1.0f / std::sqrt(static_cast<float>(d));
  std::vector<float> kr(k, k + hkv * s * d);
  if (base > 0)
    for (int64_t h = 0; h < hkv; ++h)
      ropeHalf(kr.data() + h * s * d, pos, s, d, base);
  auto work = [&](int t) {
    std::vector<float> qrow(d), scores(s), acc(d);
    for (int64_t h = t; h < hq; h += threads) {
      const float *kh = kr.data() + (h / group) * s * d;
      const float *vh = v + (h / group) * s * d;
      std::vector<float> qh(q + h * s * d, q + (h + 1) * s * d);
      if (base > 0)
        ropeHalf(qh.data(), pos, s, d, base);
      for (int64_t i = 0; i < s; ++i) {
        const float *qi = qh.data() + i * d;
        float mx = -INFINITY;
        for (int64_t j = 0; j <= i; ++j) {
          float dot = 0;
          for (int64_t x = 0; x < d; ++x)
            dot += qi[x] * kh[j * d + x];
          float sc = dot * scale;
          if (slopes)
            sc += slopes[h] * static_cast<float>(j - i);
          scores[j] = sc;
          mx = std::max(mx, sc);
        }
        float sum = 0;
        for (int64_t j = 0; j <= i; ++j) {
          scores[j] = std::exp(scores[j] - mx);
          sum += scores[j];
        }
        for (int64_t x = 0; x < d; ++x)
          acc[x] = 0;
        for (int64_t j = 0; j <= i; ++j) {
          float p = scores[j] / sum;
          for (int64_t x = 0; x < d; ++x)
            acc[x] += p * vh[j * d + x];
        }
        for (int64_t x = 0; x < d; ++x)
          out[(h * s + i) * d + x] = acc[x];
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(work, t);
  for (auto &th : pool)
    th.join();
}

} // extern "C"
