/* The int8 matrix product's packed layout and microkernels (internal to
 * kernels/layer: qgemm.c drives, qgemm_<isa>.c hold the ISA kernels). */
#ifndef PTERUN_KLAYER_QGEMM_H
#define PTERUN_KLAYER_QGEMM_H

#include "klayer.h"

/* Columns per packed panel: one AVX-512 register of int32 lanes. */
#define K_QNR 16

/* Header of the packed weights (K_QHDR bytes), then, each part 64-byte
 * aligned:
 *  w:     panels x (kp / 4) x K_QNR x 4 int8 (4 consecutive k of a column
 *         together: what one VNNI/sdot lane sums), zero past N and K; or,
 *         wbits 4 (kernels that take them, 4-bit values), panels x (kp / 8)
 *         x K_QNR x 4 bytes: steps of 4 k in pairs, the even step's value in
 *         each byte's low nibble and the odd step's in its high one;
 *  csum:  panels x groups x K_QNR int32, the sums of each column's values
 *         over a group (the activations' zero point times it is removed);
 *  scale: panels x groups x K_QNR float, the group's scale (blockwise), else 1;
 *  bias:  panels x K_QNR float (0 when none);
 *  col:   panels x 2 x K_QNR float: the column's scale (1 when blockwise)
 *         and its ksum (below; 0 unless blockwise).
 * K is cut into groups of glen (a multiple of 4 but for the last) so the
 * int32 sums of a group never overflow; per-channel scales repeat.
 *
 * The float arithmetic is XNNPACK's, so that the results are ExecuTorch's
 * bit for bit (every microkernel does the same operations in the same
 * order). Per row, with sa its scale, zp its zero point and a its bytes:
 *  per-channel scales (XNNPACK's qc8w):
 *    s = sum (a - zp) w exactly; out = fma(float(s) * sa, scale, bias)
 *  blockwise (group scales, XNNPACK's qb4w; ExecuTorch writes per-channel
 *    int4 as one group of all K): raw_g = sum over the group of (a + zoff) w,
 *    f = ksum * float(zp + zoff); f = fma(float(raw_g), scale_g, f) group
 *    after group; out = f * sa + bias
 * where ksum = -sum over chunks of float(sum of the chunk's w) * scale_g,
 * accumulated in float at pack time as XNNPACK packs it, and zoff is 128
 * where XNNPACK's kernels take the activations as unsigned bytes (x86 with
 * VNNI), else 0 (k_qgemm_xnn_arith). In the kernels this is: each group's
 * sums start at -zr * csum (zr = zp, or -zoff when blockwise, plus
 * 128 where the kernel flips bytes to unsigned), f starts at ksum * float(zp
 * + zoff) and takes fma(float(sums), scale, f) per group, and out = fma(f *
 * sa, column scale, bias). Static int8 (c8) tiles take f * column scale +
 * bias instead. */
#define K_QHDR 128
struct k_qgemm_packed {
  int64_t n, k, kp, glen, groups, panels;
  uint32_t off_csum, off_scale, off_bias, off_col;
  int32_t zoff;
  int32_t wbits;  /* 8, or 4 (above) */
  bool blockwise; /* the arithmetic of groups below, even for one */
};

typedef struct k_qtile {
  const k_qgemm_packed *p;
  const int8_t *a; /* row 0 of the tile */
  int64_t sa;      /* bytes */
  const k_qd8_params *qp;
  int mr;        /* valid rows */
  int64_t panel; /* first panel */
  int np;        /* panels in the block */
  int nc;        /* valid columns of the last panel */
  float *c;      /* row 0, column of the first panel */
  int64_t sc;
  bool clamp;
  float lo, hi;
  /* Static int8 (k_qgemm_s8) on kernels that can (the AVX-512 and AVX2 ones): c8
   * non-NULL (every row's zero point the same, scale 1) has the tile rounded, plus zp8 (or requantized by rq)
   * and stored as int8 rows of stride sc8, as k_qstore_s8 would, instead of c. */
  int8_t *c8;
  int64_t sc8;
  int32_t zp8;
  const k_requant_s8_params *rq;
} k_qtile;

static inline const int8_t *k_qw_panel(const k_qgemm_packed *p, int64_t panel) {
  return (const int8_t *)p + K_QHDR + panel * p->kp * K_QNR * p->wbits / 8;
}
/* Column j's value at k of a panel (either layout). */
static inline int32_t k_qw_value(const k_qgemm_packed *p, int64_t panel, int64_t j, int64_t k) {
  const int8_t *w = k_qw_panel(p, panel);
  if (p->wbits == 8) return w[(k / 4) * K_QNR * 4 + j * 4 + k % 4];
  const int32_t b = (uint8_t)w[(k / 8) * K_QNR * 4 + j * 4 + k % 4] >> (k / 4 % 2 * 4) & 15;
  return b > 7 ? b - 16 : b;
}
static inline const int32_t *k_qcsum(const k_qgemm_packed *p, int64_t panel) {
  return (const int32_t *)((const char *)p + p->off_csum) + panel * p->groups * K_QNR;
}
static inline const float *k_qscale(const k_qgemm_packed *p, int64_t panel) {
  return (const float *)((const char *)p + p->off_scale) + panel * p->groups * K_QNR;
}
static inline const float *k_qbias(const k_qgemm_packed *p, int64_t panel) {
  return (const float *)((const char *)p + p->off_bias) + panel * K_QNR;
}
/* The column scales of a panel (K_QNR floats), then its ksums (K_QNR). */
static inline const float *k_qcol(const k_qgemm_packed *p, int64_t panel) {
  return (const float *)((const char *)p + p->off_col) + panel * 2 * K_QNR;
}
/* zr of the comment above, without a kernel's flip. */
static inline int32_t k_qzr(const k_qgemm_packed *p, int32_t zp) { return p->blockwise ? -p->zoff : zp; }

typedef void (*k_qukr_fn)(const k_qtile *t);
void k_qukr_generic(const k_qtile *t);
void k_qukr_avx512vnni(const k_qtile *t); /* MR 6, NP 2 */
void k_qukr_amx(const k_qtile *t);        /* MR 16, NP 2 (AMX-INT8; tiles it cannot take go to VNNI) */
/* The CPU has AMX-INT8 and the OS let this process use its tiles. */
bool k_qamx_usable(void);
void k_qukr_avx2(const k_qtile *t);    /* MR 16, NP 1 */
void k_qukr_avxvnni(const k_qtile *t); /* MR 3, NP 1 */
void k_qukr_neon(const k_qtile *t);    /* MR 4, NP 1 */
void k_qukr_neondot(const k_qtile *t); /* MR 4, NP 1 */

/* The microkernel k_qgemm runs (qgemm.c chooses it): rows and panels per
 * tile and the function; k_qgemm_s8 (qgemm_s8.c) drives the same one. */
k_qukr_fn k_qgemm_ukr(int *mr, int *np);
/* Rows per tile of any microkernel (the largest MR). */
#define K_QMR_MAX 16
/* Panels per tile of any microkernel (the largest NP). */
#define K_QNP_MAX 2

/* qd8 rows in two passes: the range (started at [0, 0], NaN skipped) and
 * q = clamp(rint(x * inv) + zp) with the bounds applied before rounding
 * (NaN goes to the low bound). */
typedef void (*k_qminmax_fn)(int64_t K, const float *x, float *lo, float *hi);
typedef void (*k_qconvert_fn)(int64_t K, const float *x, float inv, int32_t zp, int8_t *q);
void k_qminmax_avx2(int64_t K, const float *x, float *lo, float *hi);
void k_qconvert_avx2(int64_t K, const float *x, float inv, int32_t zp, int8_t *q);
void k_qminmax_avx512(int64_t K, const float *x, float *lo, float *hi);
void k_qconvert_avx512(int64_t K, const float *x, float inv, int32_t zp, int8_t *q);

/* y[i] = table[y[i] + 128] by two vpermi2b and a blend on the sign bit
 * (AVX-512 VBMI; k_qtable_s8_usable says whether the CPU has it). */
void k_qtable_s8_avx512vbmi(int8_t *y, size_t n, const int8_t *table);
bool k_qtable_s8_usable(void);

/* k_requant_s8's bodies (qgemm_s8.c dispatches). */
void k_requant_s8_avx2(int8_t *y, size_t n, int32_t zin, float scale, float inv, int32_t zout);
void k_requant_s8_avx512(int8_t *y, size_t n, int32_t zin, float scale, float inv, int32_t zout);
/* k_quantize_s8's and k_dequantize_s8's bodies (n a multiple of 16 / 8). */
void k_quantize_s8_avx2(const float *x, int8_t *y, size_t n, float inv, int32_t zp);
void k_quantize_s8_avx512(const float *x, int8_t *y, size_t n, float inv, int32_t zp);
void k_dequantize_s8_avx2(const int8_t *x, float *y, size_t n, int32_t zp, float scale);
void k_dequantize_s8_avx512(const int8_t *x, float *y, size_t n, int32_t zp, float scale);

/* k_dwconv_s8's bodies: the channels of one pixel (mult 1) in whole
 * vectors; returns how many were done (the rest go to the plain loop). */
typedef int64_t (*k_dw_body_fn)(const k_dwconv_s8_desc *d, const int8_t *const *taps, int ntaps, int8_t *y);
int64_t k_dw_body_avx2(const k_dwconv_s8_desc *d, const int8_t *const *taps, int ntaps, int8_t *y);
int64_t k_dw_body_avx512(const k_dwconv_s8_desc *d, const int8_t *const *taps, int ntaps, int8_t *y);
/* n interior pixels of an output row (pixel p's tap t at taps[t] + p *
 * step[t], outputs C bytes apart): what the body does for each, with a 3x3
 * window's weights kept in registers over the run; returns the channels
 * done (the rest go to the plain loop). AVX-512 VNNI (vpdpwssd) only. */
typedef int64_t (*k_dw_row_fn)(const k_dwconv_s8_desc *d, const int8_t *const *taps, const int64_t *step,
                               int ntaps, int64_t n, int8_t *y);
int64_t k_dw_row_avx512vnni(const k_dwconv_s8_desc *d, const int8_t *const *taps, const int64_t *step,
                            int ntaps, int64_t n, int8_t *y);

/* The last (partial) 4 bytes of a row of K bytes, zero-padded. */
static inline int32_t k_qload_tail(const int8_t *a, int64_t k, int64_t K) {
  int32_t v = 0;
  memcpy(&v, a + k, (size_t)(K - k));
  return v;
}

#endif
