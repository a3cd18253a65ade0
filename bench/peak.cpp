//===- peak.cpp - this machine's FMA peak and memory bandwidth ------------===//
//
// The benchmark reports kernel speed as a ratio to what this machine can do,
// measured in the same run: the f32 FMA throughput of the widest vectors the
// binary was built for (AVX-512 here), and a STREAM-like triad bandwidth.
// Prints one JSON object.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#ifdef POSENC_PEAK_OPENMP
#include <omp.h>
#endif

#if defined(__AVX512F__)
#include <immintrin.h>
#define POSENC_VEC_NAME "avx512"
typedef __m512 vec;
static inline vec vset(float x) { return _mm512_set1_ps(x); }
static inline vec vfma(vec a, vec b, vec c) { return _mm512_fmadd_ps(a, b, c); }
static inline float vsum(vec a) { return _mm512_reduce_add_ps(a); }
static inline vec vload(const float *p) { return _mm512_loadu_ps(p); }
static inline vec vadd(vec a, vec b) { return _mm512_add_ps(a, b); }
static const int kLanes = 16;
#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define POSENC_VEC_NAME "avx2"
typedef __m256 vec;
static inline vec vset(float x) { return _mm256_set1_ps(x); }
static inline vec vfma(vec a, vec b, vec c) { return _mm256_fmadd_ps(a, b, c); }
static inline vec vload(const float *p) { return _mm256_loadu_ps(p); }
static inline vec vadd(vec a, vec b) { return _mm256_add_ps(a, b); }
static inline float vsum(vec a) {
  float t[8];
  _mm256_storeu_ps(t, a);
  float s = 0;
  for (float v : t)
    s += v;
  return s;
}
static const int kLanes = 8;
#else
#define POSENC_VEC_NAME "scalar"
typedef float vec;
static inline vec vset(float x) { return x; }
static inline vec vfma(vec a, vec b, vec c) { return a * b + c; }
static inline float vsum(vec a) { return a; }
static inline vec vload(const float *p) { return *p; }
static inline vec vadd(vec a, vec b) { return a + b; }
static const int kLanes = 1;
#endif

using Clock = std::chrono::steady_clock;

/// 16 independent FMA chains: enough to cover latency x ports on current
/// x86 cores. Returns flops performed.
static double fmaKernel(long iters, float *sink) {
  vec a[16];
  for (int i = 0; i < 16; ++i)
    a[i] = vset(1.0f + i * 1e-3f);
  vec m = vset(0.999999f), c = vset(1e-7f);
  for (long it = 0; it < iters; ++it) {
    // Fully unrolled so the 16 accumulators live in registers.
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i)
      a[i] = vfma(a[i], m, c);
  }
  float s = 0;
  for (int i = 0; i < 16; ++i)
    s += vsum(a[i]);
  *sink = s;
  return 2.0 * kLanes * 16.0 * static_cast<double>(iters);
}

#ifdef POSENC_PEAK_OPENMP
/// The library's passes run on the threads of the OpenMP runtime the JIT
/// loads (LLVM's libomp, linked by bench/CMakeLists.txt), the same threads
/// as the kernels they are interleaved with. Threads of its own would share
/// the cores with the runtime's workers, which spin for KMP_BLOCKTIME after
/// each kernel call; waiting them out (an idle sleep before each probe)
/// made the kernel call after the probe 10-25 % slower on the AMD Zen 5
/// virtual machine (docs/bench-cpu.md, "Fourteenth session").
template <typename F> static double parallelSeconds(int threads, F body) {
  auto t0 = Clock::now();
#pragma omp parallel num_threads(threads)
  body(omp_get_thread_num());
  return std::chrono::duration<double>(Clock::now() - t0).count();
}
#else
template <typename F> static double parallelSeconds(int threads, F body) {
  std::vector<std::thread> pool;
  auto t0 = Clock::now();
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(body, t);
  for (auto &th : pool)
    th.join();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}
#endif

/// One pass of `iters` iterations of fmaKernel on each of `threads` threads.
static double fmaPassGflops(int threads, long iters) {
  std::vector<float> sinks(threads);
  double secs =
      parallelSeconds(threads, [&](int t) { fmaKernel(iters, &sinks[t]); });
  return 2.0 * kLanes * 16.0 * iters * threads / secs / 1e9;
}

/// Triad a[i] = b[i] + s * c[i] over arrays far larger than the caches;
/// counts 3 x 4 bytes per element (no write-allocate traffic counted).
struct TriadArrays {
  std::vector<float> a, b, c;
  explicit TriadArrays(size_t n) : a(n), b(n, 1.0f), c(n, 2.0f) {}

  /// One pass on `threads` threads: GB/s.
  double passGBs(int threads) {
    size_t n = a.size();
    double secs = parallelSeconds(threads, [&](int t) {
      size_t lo = n * t / threads, hi = n * (t + 1) / threads;
      for (size_t i = lo; i < hi; ++i)
        a[i] = b[i] + 3.0f * c[i];
    });
    if (a[n / 2] != 7.0f)
      std::fprintf(stderr, "triad check failed\n");
    return 12.0 * n / secs / 1e9;
  }
};

#ifdef POSENC_PEAK_LIBRARY
static TriadArrays *triadArrays = nullptr;

/// A read-only stream over `n` floats, as a decode step reads K/V: each
/// thread reads its share as `streams` equal segments in lockstep (one
/// vector of each per step), summing them so the loads are not dead.
struct ReadArray {
  std::vector<float> r;
  explicit ReadArray(size_t n) : r(n, 1.0f) {}

  double passGBs(int threads, int streams, long ahead) {
    size_t n = r.size();
    std::vector<float> sinks(threads);
    double secs = parallelSeconds(threads, [&](int t) {
      size_t lo = n * t / threads, hi = n * (t + 1) / threads;
      size_t seg = (hi - lo) / streams / kLanes * kLanes;
      vec acc[8];
      for (int s = 0; s < 8; ++s)
        acc[s] = vset(0.0f);
      for (size_t i = 0; i < seg; i += kLanes)
        for (int s = 0; s < streams; ++s) {
          const float *p = &r[lo + s * seg + i];
          // One software prefetch per 64-byte line, `ahead` floats ahead.
          if (ahead > 0 && (i * sizeof(float)) % 64 == 0 && i + ahead < seg)
            __builtin_prefetch(p + ahead, 0, 3);
          acc[s] = vadd(acc[s], vload(p));
        }
      float sum = 0;
      for (int s = 0; s < streams; ++s)
        sum += vsum(acc[s]);
      sinks[t] = sum;
    });
    size_t bytes = 0;
    for (int t = 0; t < threads; ++t) {
      size_t lo = n * t / threads, hi = n * (t + 1) / threads;
      bytes += (hi - lo) / streams / kLanes * kLanes * streams * sizeof(float);
    }
    if (sinks[0] <= 0)
      std::fprintf(stderr, "read check failed\n");
    return bytes / secs / 1e9;
  }
};
static ReadArray *readArray = nullptr;

extern "C" {
/// The ISA the library was built for ("avx512", "avx2" or "scalar").
const char *posenc_bench_isa() { return POSENC_VEC_NAME; }

/// One FMA pass: GFLOP/s of `iters` iterations on each of `threads` threads.
double posenc_bench_fma_pass(int threads, long iters) {
  return fmaPassGflops(threads < 1 ? 1 : threads, iters);
}

/// One triad pass over three arrays of `n` floats (allocated and touched on
/// the first call, or when `n` changes): GB/s.
double posenc_bench_triad_pass(int threads, long n) {
  if (!triadArrays || triadArrays->a.size() != size_t(n)) {
    delete triadArrays;
    triadArrays = new TriadArrays(size_t(n));
  }
  return triadArrays->passGBs(threads < 1 ? 1 : threads);
}

/// One read pass over `n` floats (allocated on the first call, or when `n`
/// changes) as `streams` (1-8) segments per thread in lockstep, each line
/// prefetched `ahead` floats before it is read (0: no software prefetch):
/// GB/s.
double posenc_bench_read_pass(int threads, int streams, long ahead, long n) {
  if (!readArray || readArray->r.size() != size_t(n)) {
    delete readArray;
    readArray = new ReadArray(size_t(n));
  }
  return readArray->passGBs(threads < 1 ? 1 : threads,
                            std::clamp(streams, 1, 8), ahead);
}
} // extern "C"
#else
/// The best of five passes of each, as the executable reports them.
static double fmaGflops(int threads) {
  double best = 0;
  for (int rep = 0; rep < 5; ++rep)
    best = std::max(best, fmaPassGflops(threads, 40'000'000));
  return best;
}

static double triadGBs(int threads) {
  TriadArrays arrays(size_t(1) << 26); // 3 arrays x 256 MiB
  double best = 0;
  for (int rep = 0; rep < 5; ++rep)
    best = std::max(best, arrays.passGBs(threads));
  return best;
}

int main(int argc, char **argv) {
  int threads = 2;
  for (int i = 1; i < argc; ++i)
    if (!std::strncmp(argv[i], "--threads=", 10))
      threads = std::atoi(argv[i] + 10);
  if (threads < 1)
    threads = 1;
  double fma1 = fmaGflops(1);
  double fmaN = fmaGflops(threads);
  double bw = triadGBs(threads);
  std::printf("{\"isa\": \"%s\", \"threads\": %d, \"fma_gflops_1t\": %.1f, "
              "\"fma_gflops\": %.1f, \"triad_gbs\": %.1f}\n",
              POSENC_VEC_NAME, threads, fma1, fmaN, bw);
  return 0;
}
#endif // POSENC_PEAK_LIBRARY
