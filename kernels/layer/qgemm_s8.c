/* Static int8 products (klayer.h: k_qgemm_s8): the microkernels of k_qgemm
 * write a tile of floats in output steps (clamped) to the stack, one shared
 * epilogue rounds it to int8. The activations' per-tensor zero point rides in the
 * per-row parameters (every row the same, scale 1: the requantization
 * scale is in the packed weights). */
#include "qgemm.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define S8_SSE2 1 /* the x86-64 baseline: one body for every x86 microkernel */
#elif defined(__aarch64__)
#include <arm_neon.h>
#define S8_NEON 1
#endif

/* Round through the float's bits: v + 1.5 * 2^23 (|v| < 2^22) has the
 * integer nearest v, half to even, in its low mantissa bits. */
static inline int8_t q8_of(float v, int32_t zp) {
  float f = v + 12582912.0f;
  int32_t i;
  memcpy(&i, &f, 4);
  return (int8_t)(i - 0x4B400000 + zp);
}

/* One panel of 16 values: converted in the default rounding mode (half to
 * even), plus the zero point, narrowed (in range already: no saturation
 * happens). The plain loop runs when the generic kernels are asked for (so
 * tests cover it) and on other CPUs. */
static inline void q8_panel(const float *x, int32_t zp, int8_t *y, bool simd) {
  if (!simd) {
    for (int i = 0; i < K_QNR; i++) y[i] = q8_of(x[i], zp);
    return;
  }
#if defined(S8_SSE2)
  const __m128i z = _mm_set1_epi32(zp);
  __m128i a = _mm_add_epi32(_mm_cvtps_epi32(_mm_loadu_ps(x)), z);
  __m128i b = _mm_add_epi32(_mm_cvtps_epi32(_mm_loadu_ps(x + 4)), z);
  __m128i c = _mm_add_epi32(_mm_cvtps_epi32(_mm_loadu_ps(x + 8)), z);
  __m128i d = _mm_add_epi32(_mm_cvtps_epi32(_mm_loadu_ps(x + 12)), z);
  _mm_storeu_si128((__m128i *)(void *)y, _mm_packs_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
#elif defined(S8_NEON)
  const int32x4_t z = vdupq_n_s32(zp);
  int16x8_t lo = vcombine_s16(vqmovn_s32(vaddq_s32(vcvtnq_s32_f32(vld1q_f32(x)), z)),
                              vqmovn_s32(vaddq_s32(vcvtnq_s32_f32(vld1q_f32(x + 4)), z)));
  int16x8_t hi = vcombine_s16(vqmovn_s32(vaddq_s32(vcvtnq_s32_f32(vld1q_f32(x + 8)), z)),
                              vqmovn_s32(vaddq_s32(vcvtnq_s32_f32(vld1q_f32(x + 12)), z)));
  vst1q_s8(y, vcombine_s8(vqmovn_s16(lo), vqmovn_s16(hi)));
#else
  for (int i = 0; i < K_QNR; i++) y[i] = q8_of(x[i], zp);
#endif
}

/* q8_panel_rq without vectors (the round-to-nearest by the 1.5 * 2^23 trick) */
static inline void q8_panel_rq_c(const float *x, const k_requant_s8_params *rq, float lo, float hi,
                                 int8_t *y) {
  for (int i = 0; i < K_QNR; i++) {
    float f = x[i] + 12582912.0f;
    int32_t r;
    memcpy(&r, &f, 4);
    float v = (float)(r - 0x4B400000) * rq->scale * rq->inv;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    y[i] = q8_of(v, rq->zout);
  }
}

/* A panel stored through a second requantization (k_requant_s8_params):
 * x rounded is the first int8 value minus its zero point (x is clamped, so
 * that value is in range and equals what k_requant_s8 would read back),
 * then k_requant_s8's float products, clamp and rounding. */
static inline void q8_panel_rq(const float *x, const k_requant_s8_params *rq, int8_t *y, bool simd) {
  const float lo = (float)(-128 - rq->zout), hi = (float)(127 - rq->zout);
  if (!simd) {
    q8_panel_rq_c(x, rq, lo, hi, y);
    return;
  }
#if defined(S8_SSE2)
  const __m128 s = _mm_set1_ps(rq->scale), inv = _mm_set1_ps(rq->inv), l = _mm_set1_ps(lo),
               h = _mm_set1_ps(hi);
  const __m128i z = _mm_set1_epi32(rq->zout);
  __m128i q[4];
  for (int i = 0; i < 4; i++) {
    __m128 v = _mm_mul_ps(_mm_mul_ps(_mm_cvtepi32_ps(_mm_cvtps_epi32(_mm_loadu_ps(x + 4 * i))), s), inv);
    q[i] = _mm_add_epi32(_mm_cvtps_epi32(_mm_min_ps(_mm_max_ps(v, l), h)), z);
  }
  _mm_storeu_si128((__m128i *)(void *)y,
                   _mm_packs_epi16(_mm_packs_epi32(q[0], q[1]), _mm_packs_epi32(q[2], q[3])));
#elif defined(S8_NEON)
  const float32x4_t s = vdupq_n_f32(rq->scale), inv = vdupq_n_f32(rq->inv), l = vdupq_n_f32(lo),
                    h = vdupq_n_f32(hi);
  const int32x4_t z = vdupq_n_s32(rq->zout);
  int16x4_t q[4];
  for (int i = 0; i < 4; i++) {
    float32x4_t v = vmulq_f32(vmulq_f32(vcvtq_f32_s32(vcvtnq_s32_f32(vld1q_f32(x + 4 * i))), s), inv);
    q[i] = vqmovn_s32(vaddq_s32(vcvtnq_s32_f32(vminq_f32(vmaxq_f32(v, l), h)), z));
  }
  vst1q_s8(y, vcombine_s8(vqmovn_s16(vcombine_s16(q[0], q[1])), vqmovn_s16(vcombine_s16(q[2], q[3]))));
#else
  q8_panel_rq_c(x, rq, lo, hi, y);
#endif
}

static void qstore(const float *v, int64_t ld, int64_t rows, int64_t cols, int32_t zp,
                   const k_requant_s8_params *rq, int8_t *c, int64_t sc) {
  const bool simd = k_isa_get() != K_ISA_GENERIC;
  for (int64_t r = 0; r < rows; r++) {
    const float *x = v + r * ld;
    int8_t *y = c + r * sc;
    int64_t j = 0;
    if (rq)
      for (; j + K_QNR <= cols; j += K_QNR) q8_panel_rq(x + j, rq, y + j, simd);
    else
      for (; j + K_QNR <= cols; j += K_QNR) q8_panel(x + j, zp, y + j, simd);
    if (j < cols) {
      int8_t q[K_QNR];
      float t[K_QNR] = {0};
      memcpy(t, x + j, sizeof(float) * (size_t)(cols - j));
      if (rq) q8_panel_rq(t, rq, q, simd);
      else q8_panel(t, zp, q, simd);
      memcpy(y + j, q, (size_t)(cols - j));
    }
  }
}

void k_qstore_s8(const float *v, int64_t ld, int64_t rows, int64_t cols, int32_t zp, int8_t *c, int64_t sc) {
  qstore(v, ld, rows, cols, zp, NULL, c, sc);
}

typedef struct s8job {
  const k_qgemm_s8_desc *g;
  k_qukr_fn ukr;
  int mr, np;
  bool direct8; /* the microkernel stores int8 itself (k_qtile.c8) */
  bool table;   /* ... and rows of tiles get g->rq's table after their first rounding */
  int64_t mtiles, nblocks;
  k_qd8_params qp[K_QMR_MAX];
} s8job;

/* The fields every tile of the job shares, set once per range: a tile
 * built as a compound literal per call is zeroed with rep stos, and the
 * microkernel's loads of it then stall on that store (k_qgemm saw 9% of
 * BERT int8's time in it). */
static k_qtile s8_tile0(const s8job *jb) {
  const k_qgemm_s8_desc *g = jb->g;
  return (k_qtile){.p = g->w,
                   .sa = g->sa,
                   .qp = jb->qp,
                   .clamp = true,
                   .lo = (float)(g->qmin - g->c_zero_point),
                   .hi = (float)(g->qmax - g->c_zero_point)};
}

/* t becomes the tile of rows m0.. and the column block starting at
 * `panel`; where it writes is the caller's. */
static void s8_tile(const s8job *jb, int64_t m0, int64_t panel, k_qtile *t) {
  const k_qgemm_s8_desc *g = jb->g;
  const k_qgemm_packed *p = g->w;
  const int np = (int)(p->panels - panel < jb->np ? p->panels - panel : jb->np);
  const int64_t n_last = p->n - (panel + np - 1) * K_QNR;
  t->a = g->a + m0 * g->sa;
  t->mr = (int)(g->M - m0 < jb->mr ? g->M - m0 : jb->mr);
  t->panel = panel;
  t->np = np;
  t->nc = (int)(n_last < K_QNR ? n_last : K_QNR);
}

static void s8_range(void *ctx, size_t b, size_t e) {
  const s8job *jb = ctx;
  const k_qgemm_s8_desc *g = jb->g;
  float tile[K_QMR_MAX * K_QNP_MAX * K_QNR];
  const int ld = K_QNP_MAX * K_QNR;
  k_qtile t = s8_tile0(jb);
  if (jb->direct8) t.sc8 = g->sc, t.zp8 = g->c_zero_point, t.rq = g->rq;
  else t.c = tile, t.sc = ld;
  for (size_t i = b; i < e; i++) {
    /* consecutive tiles share a weight block, as in k_qgemm */
    int64_t nb = (int64_t)i / jb->mtiles, mt = (int64_t)i % jb->mtiles;
    int64_t m0 = mt * jb->mr, panel = nb * jb->np;
    s8_tile(jb, m0, panel, &t);
    if (jb->direct8) {
      t.c8 = g->c + m0 * g->sc + panel * K_QNR;
      jb->ukr(&t);
      continue;
    }
    jb->ukr(&t);
    qstore(tile, ld, t.mr, (int64_t)(t.np - 1) * K_QNR + t.nc, g->c_zero_point, g->rq,
           g->c + m0 * g->sc + panel * K_QNR, g->sc);
  }
}

/* Whole column blocks (every row tile of each): with few rows and a large
 * filter (a 7x7 map's 49 rows, 2.3 MB) each thread reads only its blocks'
 * weights, whatever the chunk boundaries of the tile range would be. */
static void s8_cols(void *ctx, size_t b, size_t e) {
  const s8job *jb = ctx;
  s8_range(ctx, b * (size_t)jb->mtiles, e * (size_t)jb->mtiles);
}

/* Row tiles whole (every column block), then the requantization table
 * over their rows while they are in cache: two byte permutes per 64
 * outputs instead of six float operations per 16. */
static void s8_rows_table(void *ctx, size_t b, size_t e) {
  const s8job *jb = ctx;
  const k_qgemm_s8_desc *g = jb->g;
  k_qtile t = s8_tile0(jb);
  t.sc8 = g->sc, t.zp8 = g->c_zero_point;
  for (size_t mt = b; mt < e; mt++) {
    const int64_t m0 = (int64_t)mt * jb->mr;
    for (int64_t nb = 0; nb < jb->nblocks; nb++) {
      s8_tile(jb, m0, nb * jb->np, &t);
      t.c8 = g->c + m0 * g->sc + t.panel * K_QNR;
      jb->ukr(&t);
    }
#if defined(PTERUN_QGEMM_X86) /* the table exists only there (k_qtable_s8_usable) */
    const k_qgemm_packed *p = g->w;
    const int mr = (int)(g->M - m0 < jb->mr ? g->M - m0 : jb->mr);
    if (g->sc == p->n) k_qtable_s8_avx512vbmi(g->c + m0 * g->sc, (size_t)(mr * p->n), g->rq->table);
    else
      for (int r = 0; r < mr; r++)
        k_qtable_s8_avx512vbmi(g->c + (m0 + r) * g->sc, (size_t)p->n, g->rq->table);
#endif
  }
}

void k_requant_s8_table(const k_requant_s8_params *rq, int8_t table[256]) {
  for (int i = 0; i < 256; i++) table[i] = (int8_t)(i - 128);
  k_requant_s8(table, 256, rq->zin, rq->scale, rq->inv, rq->zout);
}

bool k_qtable_s8_usable(void) {
#if defined(PTERUN_QGEMM_X86)
  __builtin_cpu_init();
  return k_isa_get() == K_ISA_AVX512 && __builtin_cpu_supports("avx512vbmi") &&
         __builtin_cpu_supports("avx512bw");
#else
  return false;
#endif
}

void k_qgemm_s8(const k_qgemm_s8_desc *g) {
  const k_qgemm_packed *p = g->w;
  if (g->M <= 0) return;
  s8job jb = {.g = g};
  jb.ukr = k_qgemm_ukr(&jb.mr, &jb.np);
#if defined(PTERUN_QGEMM_X86)
  jb.direct8 = jb.ukr == k_qukr_avx512vnni || jb.ukr == k_qukr_amx || jb.ukr == k_qukr_avx2;
  /* by row tiles only when there are many (a 7x7 layer's 9 would split
   * badly over threads; its long K leaves the epilogue little anyway) */
  jb.table = jb.direct8 && g->rq && g->rq->table && k_qtable_s8_usable() && (g->M + jb.mr - 1) / jb.mr >= 64;
#endif
  for (int i = 0; i < K_QMR_MAX; i++) jb.qp[i] = (k_qd8_params){.zero_point = g->a_zero_point, .scale = 1.0f};
  jb.mtiles = (g->M + jb.mr - 1) / jb.mr;
  const int64_t nblocks = (p->panels + jb.np - 1) / jb.np;
  jb.nblocks = nblocks;
  const size_t tiles = (size_t)(jb.mtiles * nblocks);
  const double flops = 2.0 * (double)g->M * (double)p->n * (double)p->k;
  /* int8 work counted at half, as in k_qgemm */
  const bool par = g->parallel && flops * 0.5 >= K_PAR_MIN_FLOPS;
  if (jb.table) {
    if (par) k_parallel_for((size_t)jb.mtiles, flops * 0.5, s8_rows_table, &jb);
    else s8_rows_table(&jb, 0, (size_t)jb.mtiles);
    return;
  }
  if (par && jb.mtiles < nblocks) k_parallel_for((size_t)nblocks, flops * 0.5, s8_cols, &jb);
  else if (par) k_parallel_for(tiles, flops * 0.5, s8_range, &jb);
  else s8_range(&jb, 0, tiles);
}

static void requant_generic(int8_t *y, size_t n, int32_t zin, float scale, float inv, int32_t zout) {
  const float lo = (float)(-128 - zout), hi = (float)(127 - zout);
  for (size_t i = 0; i < n; i++) {
    float v = (float)((int32_t)y[i] - zin) * scale * inv;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    y[i] = q8_of(v, zout);
  }
}

void k_requant_s8(int8_t *y, size_t n, int32_t zin, float scale, float inv, int32_t zout) {
  size_t done = 0;
#if defined(PTERUN_QGEMM_X86)
  /* whole vectors on the ISA's body, the rest in the plain loop */
  const k_isa isa = k_isa_get();
  if (isa == K_ISA_AVX512) done = n / 64 * 64, k_requant_s8_avx512(y, done, zin, scale, inv, zout);
  else if (isa == K_ISA_AVX2) done = n / 32 * 32, k_requant_s8_avx2(y, done, zin, scale, inv, zout);
#endif
  requant_generic(y + done, n - done, zin, scale, inv, zout);
}

void k_quantize_s8(const float *x, int8_t *y, size_t n, float inv, int32_t zp) {
  size_t done = 0;
#if defined(PTERUN_QGEMM_X86)
  const k_isa isa = k_isa_get();
  if (isa == K_ISA_AVX512) done = n / 16 * 16, k_quantize_s8_avx512(x, y, done, inv, zp);
  else if (isa == K_ISA_AVX2) done = n / 8 * 8, k_quantize_s8_avx2(x, y, done, inv, zp);
#endif
  const float lo = (float)(-128 - zp), hi = (float)(127 - zp);
  for (size_t i = done; i < n; i++) {
    float v = x[i] * inv;
    v = v == v ? v : 0.0f; /* NaN: to the zero point */
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    y[i] = q8_of(v, zp);
  }
}

void k_dequantize_s8(const int8_t *x, float *y, size_t n, int32_t zp, float scale) {
  size_t done = 0;
#if defined(PTERUN_QGEMM_X86)
  const k_isa isa = k_isa_get();
  if (isa == K_ISA_AVX512) done = n / 16 * 16, k_dequantize_s8_avx512(x, y, done, zp, scale);
  else if (isa == K_ISA_AVX2) done = n / 8 * 8, k_dequantize_s8_avx2(x, y, done, zp, scale);
#endif
  for (size_t i = done; i < n; i++) y[i] = (float)((int32_t)x[i] - zp) * scale;
}
