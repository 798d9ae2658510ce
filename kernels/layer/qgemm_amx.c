/* The int8 product's AMX microkernel (see qgemm.h): 16 rows x 2 panels
 * (32 columns) of int32 sums by tdpbssd, signed by signed bytes, so the
 * activations need no flip and the zero-point term is -zp * colsum. The
 * packed weights' layout (4 consecutive k of 16 columns in 64 bytes) is
 * already AMX's B tile: a panel's 64 k are 16 rows of 64 bytes. One tile
 * product is 16K multiply-adds, 16x a VNNI instruction's 1K; the float
 * epilogue is the VNNI kernel's (per-channel scales: qgemm.h), so results
 * are the same bit for bit.
 * A K that is not a multiple of 64 (MobileNetV2's 16, 24, 96, 144...)
 * ends on a narrower step: tiles of K % 64 bytes of A and K % 64 / 4 rows
 * of B, so no padding is read or multiplied. Tiles it cannot take whole
 * (fewer rows, K not a multiple of 4, group scales, 4-bit weights) run on
 * the VNNI kernel. */
#define _GNU_SOURCE /* syscall */
#include "qgemm.h"

/* built with its ISA flags on x86-64 only (see CMakeLists.txt) */
/* __AMX_INT8__ is GCC's name, __AMXINT8__ clang's */
#if (defined(__AMX_INT8__) || defined(__AMXINT8__)) && defined(__AVX512VNNI__)
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#define AMX_MR 16

/* Linux keeps AMX tile data off until the process asks (arch_prctl
 * ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA); a kernel or hypervisor that
 * refuses leaves the VNNI kernel. */
bool k_qamx_usable(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(d >> 24 & 1) || !(d >> 25 & 1)) return false;
#if defined(SYS_arch_prctl)
  return syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XTILEDATA */) == 0;
#else
  return false;
#endif
}

typedef struct amx_cfg {
  uint8_t palette, start_row, reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
} amx_cfg;

/* The configuration is per thread and changes only with K % 64 (once a
 * product, not a tile): tiles 0-1 the sums (16 x 16 int32), 2 and 5 rows
 * (16 x 64 bytes), 3-4 and 6-7 panels (16 x 64). With a tail, tiles 5-7
 * are the tail's instead: rows of `tail` bytes, panels of tail / 4 rows.
 * -1: not configured on this thread. */
static _Thread_local int g_tail = -1;

static void amx_configure(int tail) {
  amx_cfg c;
  memset(&c, 0, sizeof c);
  c.palette = 1;
  for (int i = 0; i < 8; i++) c.rows[i] = 16, c.colsb[i] = 64;
  if (tail) c.colsb[5] = (uint16_t)tail, c.rows[6] = c.rows[7] = (uint8_t)(tail / 4);
  _tile_loadconfig(&c);
  g_tail = tail;
}

/* The VNNI kernel over at most 6 rows at a time. */
static void by_vnni(const k_qtile *t) {
  for (int r = 0; r < t->mr; r += 6) {
    k_qtile u = *t;
    u.a = t->a + r * t->sa;
    u.qp = t->qp + r;
    u.mr = t->mr - r < 6 ? t->mr - r : 6;
    if (t->c) u.c = t->c + r * t->sc;
    if (t->c8) u.c8 = t->c8 + r * t->sc8;
    k_qukr_avx512vnni(&u);
  }
}

/* One panel's static int8 outputs of a row, before saturation: the VNNI
 * kernel's arithmetic (sums less zp * colsum, times the column scale,
 * plus bias, bounds, rounding half to even, the second requantization,
 * plus the zero point). */
static inline __attribute__((always_inline)) __m512i s8_panel(const int32_t *acc, __m512i zcs, __m512 sc,
                                                              __m512 bias, bool clamp, __m512 lo, __m512 hi,
                                                              bool rq, __m512 rs, __m512 ri, __m512 rlo,
                                                              __m512 rhi, __m512i z8) {
  const __m512i s = _mm512_sub_epi32(_mm512_load_si512((const void *)acc), zcs);
  __m512 v = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(s), sc), bias);
  if (clamp) v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
  __m512i q = _mm512_cvtps_epi32(v);
  if (rq) {
    __m512 u = _mm512_mul_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(q), rs), ri);
    q = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(u, rlo), rhi));
  }
  return _mm512_add_epi32(q, z8);
}

/* The static int8 epilogue (c8: one zero point, row scale 1) of a whole
 * tile, its branches and zp * colsum out of the row loop (the loads and
 * stores through int8 pointers kept the compiler from hoisting them); two
 * panels of a row leave as one store: packs (saturating to int16, then
 * int8: the same as saturating once) and a dword permute. */
static inline __attribute__((always_inline)) void s8_tile(const k_qtile *t, int np,
                                                          const int32_t (*acc)[2 * K_QNR], bool clamp,
                                                          const k_requant_s8_params *rq) {
  const k_qgemm_packed *p = t->p;
  const __m512 lo = _mm512_set1_ps(t->lo), hi = _mm512_set1_ps(t->hi);
  const __m512 rs = _mm512_set1_ps(rq ? rq->scale : 1.0f), ri = _mm512_set1_ps(rq ? rq->inv : 1.0f),
               rlo = _mm512_set1_ps(rq ? (float)(-128 - rq->zout) : 0.0f),
               rhi = _mm512_set1_ps(rq ? (float)(127 - rq->zout) : 0.0f);
  const __m512i z8 = _mm512_set1_epi32(rq ? rq->zout : t->zp8), zp = _mm512_set1_epi32(t->qp[0].zero_point);
  int8_t *const c8 = t->c8;
  const int64_t sc8 = t->sc8;
  __m512i zcs[2];
  __m512 sc[2], bias[2];
  for (int j = 0; j < np; j++) {
    zcs[j] = _mm512_mullo_epi32(zp, _mm512_loadu_si512(k_qcsum(p, t->panel + j)));
    sc[j] = _mm512_loadu_ps(k_qcol(p, t->panel + j)), bias[j] = _mm512_loadu_ps(k_qbias(p, t->panel + j));
  }
  const int cols = (np - 1) * K_QNR + t->nc;
  if (np == 2) {
    const __mmask64 m = ((__mmask64)1 << cols) - 1; /* the low 32 bytes at most */
    const __m512i perm = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0);
    for (int i = 0; i < AMX_MR; i++) {
      const __m512i q0 = s8_panel(acc[i], zcs[0], sc[0], bias[0], clamp, lo, hi, rq, rs, ri, rlo, rhi, z8);
      const __m512i q1 =
          s8_panel(acc[i] + K_QNR, zcs[1], sc[1], bias[1], clamp, lo, hi, rq, rs, ri, rlo, rhi, z8);
      /* per 128-bit lane: 4 dwords of q0, 4 of q1 as int16, then bytes */
      const __m512i w16 = _mm512_packs_epi32(q0, q1), b8 = _mm512_packs_epi16(w16, w16);
      _mm512_mask_storeu_epi8(c8 + i * sc8, m, _mm512_permutexvar_epi32(perm, b8));
    }
  } else {
    const __mmask16 m = (__mmask16)((1u << cols) - 1);
    for (int i = 0; i < AMX_MR; i++)
      _mm512_mask_cvtsepi32_storeu_epi8(
          c8 + i * sc8, m, s8_panel(acc[i], zcs[0], sc[0], bias[0], clamp, lo, hi, rq, rs, ri, rlo, rhi, z8));
  }
}

void k_qukr_amx(const k_qtile *t) {
  const k_qgemm_packed *p = t->p;
  const int64_t K = p->k;
  if (t->mr < AMX_MR || p->blockwise || p->wbits != 8 || p->groups != 1 || p->kp != K) {
    by_vnni(t);
    return;
  }
  const int tail = (int)(K % 64);
  if (g_tail != tail) amx_configure(tail);
  const int np = t->np < 2 ? t->np : 2;
  const int8_t *w0 = k_qw_panel(p, t->panel), *w1 = k_qw_panel(p, t->panel + np - 1);
  _tile_zero(0);
  _tile_zero(1);
  int64_t k = 0;
  if (tail) {
    /* the tail first, in its own tiles (5-7), then the whole steps in 2-4:
     * those wait on each other's products, but K has few of them here */
    const int64_t kt = K - tail;
    _tile_loadd(5, t->a + kt, t->sa);
    _tile_loadd(6, w0 + kt * K_QNR, 64);
    _tile_dpbssd(0, 5, 6);
    if (np == 2) {
      _tile_loadd(7, w1 + kt * K_QNR, 64);
      _tile_dpbssd(1, 5, 7);
    }
    for (; k < kt; k += 64) {
      _tile_loadd(2, t->a + k, t->sa);
      _tile_loadd(3, w0 + k * K_QNR, 64);
      _tile_dpbssd(0, 2, 3);
      if (np == 2) {
        _tile_loadd(4, w1 + k * K_QNR, 64);
        _tile_dpbssd(1, 2, 4);
      }
    }
  }
  /* tiles are not renamed: a load into a tile the previous product still
   * reads waits for it, so even and odd steps of 64 k use their own tiles
   * (2-4 and 5-7) and the loads of one overlap the products of the other */
  else if (np == 2) {
    for (; k + 128 <= K; k += 128) {
      _tile_loadd(2, t->a + k, t->sa);
      _tile_loadd(3, w0 + k * K_QNR, 64);
      _tile_loadd(4, w1 + k * K_QNR, 64);
      _tile_dpbssd(0, 2, 3);
      _tile_dpbssd(1, 2, 4);
      _tile_loadd(5, t->a + k + 64, t->sa);
      _tile_loadd(6, w0 + (k + 64) * K_QNR, 64);
      _tile_loadd(7, w1 + (k + 64) * K_QNR, 64);
      _tile_dpbssd(0, 5, 6);
      _tile_dpbssd(1, 5, 7);
    }
    if (k < K) {
      _tile_loadd(2, t->a + k, t->sa);
      _tile_loadd(3, w0 + k * K_QNR, 64);
      _tile_loadd(4, w1 + k * K_QNR, 64);
      _tile_dpbssd(0, 2, 3);
      _tile_dpbssd(1, 2, 4);
    }
  } else {
    for (; k + 128 <= K; k += 128) {
      _tile_loadd(2, t->a + k, t->sa);
      _tile_loadd(3, w0 + k * K_QNR, 64);
      _tile_dpbssd(0, 2, 3);
      _tile_loadd(5, t->a + k + 64, t->sa);
      _tile_loadd(6, w0 + (k + 64) * K_QNR, 64);
      _tile_dpbssd(0, 5, 6);
    }
    if (k < K) {
      _tile_loadd(2, t->a + k, t->sa);
      _tile_loadd(3, w0 + k * K_QNR, 64);
      _tile_dpbssd(0, 2, 3);
    }
  }
  _Alignas(64) int32_t acc[AMX_MR][2 * K_QNR];
  _tile_stored(0, acc[0], (long)sizeof acc[0]);
  if (np == 2) _tile_stored(1, acc[0] + K_QNR, (long)sizeof acc[0]);
  if (t->c8) {
    /* constant flags, so each variant's loop is straight */
    if (t->clamp) t->rq ? s8_tile(t, np, acc, true, t->rq) : s8_tile(t, np, acc, true, NULL);
    else t->rq ? s8_tile(t, np, acc, false, t->rq) : s8_tile(t, np, acc, false, NULL);
    return;
  }

  /* the VNNI kernel's epilogue with per-channel scales: sums less zp *
   * colsum, times the row scale, then a fused multiply-add of the column
   * scale and bias, bounds and the store */
  const __m512 lo = _mm512_set1_ps(t->lo), hi = _mm512_set1_ps(t->hi);
  for (int j = 0; j < np; j++) {
    const int64_t panel = t->panel + j;
    const __m512i cs = _mm512_loadu_si512(k_qcsum(p, panel));
    const __m512 sc = _mm512_loadu_ps(k_qcol(p, panel)), bias = _mm512_loadu_ps(k_qbias(p, panel));
    const int cols = j == t->np - 1 ? t->nc : K_QNR;
    const __mmask16 m = (__mmask16)((1u << cols) - 1);
    for (int i = 0; i < AMX_MR; i++) {
      const __m512i s = _mm512_sub_epi32(_mm512_load_si512((const void *)(acc[i] + j * K_QNR)),
                                         _mm512_mullo_epi32(_mm512_set1_epi32(t->qp[i].zero_point), cs));
      const __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(s), _mm512_set1_ps(t->qp[i].scale));
      __m512 v = _mm512_fmadd_ps(f, sc, bias);
      if (t->clamp) v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
      _mm512_mask_storeu_ps(t->c + i * t->sc + j * K_QNR, m, v);
    }
  }
}
#endif
