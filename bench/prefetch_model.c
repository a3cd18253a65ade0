// A C model of one decode key step of a 16-row tile (Sq = 4, GQA 4; f32,
// D = 128, 128 keys per step): the score loop (16 keys x 16 rows per
// register tile, one head dim per iteration, K broadcast from memory), a
// scale standing in for the softmax, and the P V loop (8 rows x 32 dims per
// register tile, one key per iteration), over K/V much larger than the
// caches, each step prefetching the next step's K/V rows in one of these
// ways:
//   none      no software prefetch
//   burst     all 2048 lines of the next tile at the step's start
//   spread N  N lines every N iterations of the two loops: K's lines in the
//             score loop, V's in P V (N = 1: one line per iteration)
//   paired    a K line and a V line per iteration of the score loop only
// docs/pipelines.md, "Prefetches spread over the key step", has what it
// measured and why posenc spreads its prefetches. Not part of the build:
//   clang -O2 -march=native -o prefetch_model bench/prefetch_model.c
//   ./prefetch_model spread 1 & ./prefetch_model spread 1; wait
// (two copies: both cores streaming, as in the 2-thread benchmark).
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { D = 128, TK = 128, ROWS = 16, LINE = 16 /* floats */ };
enum { LINES = TK * D / LINE }; // lines of K (or V) per step

static float qT[D][ROWS] __attribute__((aligned(64)));
static float s[TK][ROWS] __attribute__((aligned(64)));
static float acc[ROWS][D] __attribute__((aligned(64)));

typedef enum { NONE, BURST, SPREAD, PAIRED } Mode;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void prefetch(const float *base, int line) {
  _mm_prefetch((const char *)(base + line * LINE), _MM_HINT_T0);
}

// Before iteration `it` of a loop: the spread modes' share of lines.
static void issue(Mode mode, int clump, int it, const float *next,
                  const float *other, int *line) {
  if (mode == PAIRED) {
    prefetch(next, *line);
    prefetch(other, (*line)++);
  } else if (mode == SPREAD && it % clump == 0) {
    for (int z = 0; z < clump && *line < LINES; ++z)
      prefetch(next, (*line)++);
  }
}

static void step(const float *k, const float *v, const float *kNext,
                 const float *vNext, Mode mode, int clump) {
  if (mode == BURST)
    for (int l = 0; l < LINES; ++l) {
      prefetch(kNext, l);
      prefetch(vNext, l);
    }
  int line = 0;
  for (int j0 = 0; j0 < TK; j0 += 16) {
    __m512 a[16];
    for (int r = 0; r < 16; ++r)
      a[r] = _mm512_setzero_ps();
    for (int d = 0; d < D; ++d) {
      issue(mode, clump, d, kNext, vNext, &line);
      __m512 q = _mm512_load_ps(qT[d]);
      for (int r = 0; r < 16; ++r)
        a[r] = _mm512_fmadd_ps(q, _mm512_set1_ps(k[(j0 + r) * D + d]), a[r]);
    }
    for (int r = 0; r < 16; ++r)
      _mm512_store_ps(s[j0 + r], a[r]);
  }
  for (int j = 0; j < TK; ++j)
    _mm512_store_ps(s[j], _mm512_mul_ps(_mm512_load_ps(s[j]),
                                        _mm512_set1_ps(0.01f)));
  line = mode == PAIRED ? LINES : 0;
  for (int r0 = 0; r0 < ROWS; r0 += 8)
    for (int c0 = 0; c0 < D; c0 += 32) {
      __m512 a[8][2];
      for (int r = 0; r < 8; ++r) {
        a[r][0] = _mm512_load_ps(&acc[r0 + r][c0]);
        a[r][1] = _mm512_load_ps(&acc[r0 + r][c0 + 16]);
      }
      for (int j = 0; j < TK; ++j) {
        if (mode == SPREAD)
          issue(mode, clump, j, vNext, NULL, &line);
        __m512 v0 = _mm512_loadu_ps(v + j * D + c0);
        __m512 v1 = _mm512_loadu_ps(v + j * D + c0 + 16);
        for (int r = 0; r < 8; ++r) {
          __m512 p = _mm512_set1_ps(s[j][r0 + r]);
          a[r][0] = _mm512_fmadd_ps(p, v0, a[r][0]);
          a[r][1] = _mm512_fmadd_ps(p, v1, a[r][1]);
        }
      }
      for (int r = 0; r < 8; ++r) {
        _mm512_store_ps(&acc[r0 + r][c0], a[r][0]);
        _mm512_store_ps(&acc[r0 + r][c0 + 16], a[r][1]);
      }
    }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s none|burst|spread N|paired [keys]\n", argv[0]);
    return 2;
  }
  Mode mode = !strcmp(argv[1], "burst")    ? BURST
              : !strcmp(argv[1], "spread") ? SPREAD
              : !strcmp(argv[1], "paired") ? PAIRED
                                           : NONE;
  int clump = mode == SPREAD && argc > 2 ? atoi(argv[2]) : 1;
  long keys = argc > 2 + (mode == SPREAD) ? atol(argv[2 + (mode == SPREAD)])
                                          : 262144;
  if (clump < 1 || keys < TK || keys % TK) {
    fprintf(stderr, "clump >= 1, keys a multiple of %d\n", TK);
    return 2;
  }
  size_t n = (size_t)(keys + TK) * D; // one tile past the end: prefetched
  float *k = aligned_alloc(64, n * sizeof(float));
  float *v = aligned_alloc(64, n * sizeof(float));
  for (size_t i = 0; i < n; ++i) {
    k[i] = 1e-3f * (i % 7);
    v[i] = 1e-3f * (i % 5);
  }
  for (int d = 0; d < D; ++d)
    for (int r = 0; r < ROWS; ++r)
      qT[d][r] = 0.01f * r;
  double best = 1e30;
  for (int rep = 0; rep < 7; ++rep) {
    double t = now();
    for (long j = 0; j < keys; j += TK)
      step(k + j * D, v + j * D, k + (j + TK) * D, v + (j + TK) * D, mode,
           clump);
    t = now() - t;
    best = t < best ? t : best;
  }
  double flops = 4.0 * ROWS * D * keys;
  printf("%s %d keys %ld: %.3f ms, %.1f GFLOP/s, %.1f GB/s (acc %g)\n",
         argv[1], clump, keys, best * 1e3, flops / best * 1e-9,
         2.0 * keys * D * sizeof(float) / best * 1e-9, acc[ROWS - 1][0]);
  free(k);
  free(v);
  return 0;
}
