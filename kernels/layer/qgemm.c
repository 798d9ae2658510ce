/* The int8 matrix product of the kernel layer (see klayer.h): qd8 row
 * quantization, weight packing, the tiling over the pool and the generic
 * microkernel. The ISA microkernels live in qgemm_<isa>.c. */
#include "qgemm.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif
#if defined(PTERUN_QGEMM_X86)
#include <cpuid.h>
#endif

/* The microkernel of this process (chosen once, in the driver below). */
typedef struct qarch {
  int mr, np;
  k_qukr_fn ukr;
  const char *name;
  bool w4; /* takes 4-bit weights (qgemm.h) */
} qarch;

static qarch qarch_get(void);

/* ---- qd8 activations ---------------------------------------------------- */

/* [lo, hi] holds 0 (so that 0 is exact: padding, ReLU zeros). */
static float qd8_inv_step(float lo, float hi) { return lo == hi ? 1.0f : 255.0f / (hi - lo); }

static int32_t qd8_zero_point(float lo, float hi, float inv) {
  /* XNNPACK's choice between the zero point that maps lo exactly and the
   * one that maps hi exactly, by the sign of their summed errors */
  float lo_s = lo * inv, hi_s = hi * inv;
  float zp = (-128.0f + lo_s) + (127.0f + hi_s) > 0.0f ? -128.0f - lo_s : 127.0f - hi_s;
  if (!(zp >= -128.0f)) zp = -128.0f;
  if (zp > 127.0f) zp = 127.0f;
  return (int32_t)rintf(zp);
}

static void minmax_generic(int64_t K, const float *x, float *plo, float *phi) {
  float lo = 0.0f, hi = 0.0f;
  for (int64_t k = 0; k < K; k++) {
    lo = x[k] < lo ? x[k] : lo;
    hi = x[k] > hi ? x[k] : hi;
  }
  *plo = lo, *phi = hi;
}

static void convert_generic(int64_t K, const float *x, float inv, int32_t zp, int8_t *q) {
  /* clamping before rounding gives the same result (integer bounds) and
   * puts NaN in range; 1.5 * 2^23 added and taken away rounds |v| < 2^22
   * half to even (rintf in the default mode, which may be a call) */
  const float zmin = (float)(-128 - zp), zmax = (float)(127 - zp), magic = 12582912.0f;
  for (int64_t k = 0; k < K; k++) {
    float v = x[k] * inv;
    v = v > zmin ? v : zmin;
    v = v < zmax ? v : zmax;
    q[k] = (int8_t)((int32_t)((v + magic) - magic) + zp);
  }
}

static void quantize_row(int64_t K, const float *x, int8_t *q, k_qd8_params *qp) {
  k_qminmax_fn minmax = minmax_generic;
  k_qconvert_fn convert = convert_generic;
#if defined(PTERUN_QGEMM_X86)
  k_isa isa = k_isa_get();
  if (isa == K_ISA_AVX512) minmax = k_qminmax_avx512, convert = k_qconvert_avx512;
  else if (isa == K_ISA_AVX2) minmax = k_qminmax_avx2, convert = k_qconvert_avx2;
#endif
  float lo, hi;
  minmax(K, x, &lo, &hi);
  const float inv = qd8_inv_step(lo, hi);
  const int32_t zp = qd8_zero_point(lo, hi, inv);
  qp->zero_point = zp;
  qp->scale = 1.0f / inv;
  convert(K, x, inv, zp, q);
}

void k_qd8_quantize_rows(int64_t M, int64_t K, const float *a, int64_t lda, int8_t *q, int64_t ldq,
                         k_qd8_params *params) {
  for (int64_t m = 0; m < M; m++) quantize_row(K, a + m * lda, q + m * ldq, params + m);
}

/* ---- packing ------------------------------------------------------------ */

/* Longest group whose int32 sums cannot overflow: |a - zp| <= 255, |w| <=
 * 128, and the zero-point term starts the sum at up to 255 * 128 * glen. */
#define GLEN_MAX 16384

typedef struct layout {
  int64_t kp, glen, groups, panels, sgroups; /* sgroups: scale groups of the caller */
  int wbits;
  size_t off_csum, off_scale, off_bias, off_col, total;
} layout;

_Static_assert(sizeof(k_qgemm_packed) <= K_QHDR, "the packed header outgrew K_QHDR");

static bool plan(const k_qgemm_weights *w, layout *l, const char **err) {
  const char *e = NULL;
  if (!w) e = "no weights";
  else if (w->N <= 0 || w->K <= 0 || w->N > ((int64_t)1 << 30) || w->K > ((int64_t)1 << 30))
    e = "weights need 1 .. 2^30 rows and columns";
  else if (w->bits != K_QW_INT8 && w->bits != K_QW_INT4) e = "weights must be int8 or int4";
  else if (!w->data) e = "weights have no data";
  else if (!w->scale && !w->scale_bf16) e = "weights have no scales";
  else if (w->group < 0 || (w->group > 0 && w->group != w->K && (w->K % w->group || w->group % 4)))
    e = "the group size must divide K and be a multiple of 4";
  else if (w->stride < 0) e = "negative row stride";
  if (!e && w->stride) {
    int64_t cols = w->transposed ? w->N : w->K;
    int64_t need = w->bits == K_QW_INT8 ? cols : (cols + 1) / 2;
    if (w->stride < need) e = "the row stride is shorter than a row";
  }
  if (e) {
    if (err) *err = e;
    return false;
  }
  const bool per_group = w->group > 0 && w->group != w->K;
  l->sgroups = per_group ? w->K / w->group : 1;
  /* 4-bit weights stay 4-bit (half the bytes a product reads) where the
   * kernel takes them and every value is a nibble after the zero point:
   * ExecuTorch's int4 (unsigned nibbles less 8) or signed nibbles less 0;
   * pairs of k steps share bytes, so groups are whole pairs */
  l->wbits = qarch_get().w4 && w->bits == K_QW_INT4 && !w->zero_points &&
                     w->zero_point == (w->nibble_signed ? 0 : 8) && (!per_group || w->group % 8 == 0)
                 ? 4
                 : 8;
  const int64_t step = l->wbits == 4 ? 8 : 4;
  l->kp = (w->K + step - 1) / step * step;
  l->glen = per_group ? w->group : l->kp;
  while (l->glen > GLEN_MAX) l->glen = (l->glen / 2 + step - 1) / step * step; /* halve, whole steps */
  l->groups = (l->kp + l->glen - 1) / l->glen;
  l->panels = (w->N + K_QNR - 1) / K_QNR;
  size_t wb = (size_t)(l->panels * l->kp * K_QNR) * (size_t)l->wbits / 8;
  size_t gb = (size_t)(l->panels * l->groups * K_QNR) * 4;
  l->off_csum = K_QHDR + k_align64(wb);
  l->off_scale = l->off_csum + k_align64(gb);
  l->off_bias = l->off_scale + k_align64(gb);
  l->off_col = l->off_bias + k_align64((size_t)(l->panels * K_QNR) * 4);
  l->total = l->off_col + k_align64((size_t)(l->panels * 2 * K_QNR) * 4);
  if (l->total > UINT32_MAX) {
    if (err) *err = "weights too large";
    return false;
  }
  return true;
}

size_t k_qgemm_packed_size(const k_qgemm_weights *w, const char **err) {
  layout l;
  return plan(w, &l, err) ? l.total : 0;
}

static int32_t stored(const k_qgemm_weights *w, int64_t n, int64_t k) {
  int64_t r = w->transposed ? k : n, c = w->transposed ? n : k;
  const uint8_t *d = w->data;
  if (w->bits == K_QW_INT8) {
    int64_t s = w->stride ? w->stride : (w->transposed ? w->N : w->K);
    return (int8_t)d[r * s + c];
  }
  int64_t s = w->stride ? w->stride : ((w->transposed ? w->N : w->K) + 1) / 2;
  int32_t v = (d[r * s + c / 2] >> ((c & 1) * 4)) & 15;
  return w->nibble_signed && v > 7 ? v - 16 : v;
}

const k_qgemm_packed *k_qgemm_pack(const k_qgemm_weights *w, void *dst, size_t bytes, const char **err) {
  layout l;
  if (!plan(w, &l, err)) return NULL;
  if (!dst || ((uintptr_t)dst & 63) || bytes < l.total) {
    if (err) *err = "the packing buffer is missing, short or not 64-byte aligned";
    return NULL;
  }
  const int64_t N = w->N, K = w->K, sg = l.sgroups;
  /* scales and zero points first: a bad one refuses before any work */
  for (int64_t i = 0; i < N * sg; i++) {
    float s = w->scale ? w->scale[i] : k_bf16_to_float(w->scale_bf16[i]);
    if (!(s > 0.0f) || !isfinite(s)) {
      if (err) *err = "a weight scale is zero, negative or not finite";
      return NULL;
    }
  }
  memset(dst, 0, l.total);
  int32_t zoff;
  int chunk;
  k_qgemm_xnn_arith(&zoff, &chunk);
  k_qgemm_packed *p = dst;
  *p = (k_qgemm_packed){.n = N,
                        .k = K,
                        .kp = l.kp,
                        .glen = l.glen,
                        .groups = l.groups,
                        .panels = l.panels,
                        .off_csum = (uint32_t)l.off_csum,
                        .off_scale = (uint32_t)l.off_scale,
                        .off_bias = (uint32_t)l.off_bias,
                        .off_col = (uint32_t)l.off_col,
                        .zoff = zoff,
                        .wbits = l.wbits,
                        /* group scales (even one group of all K: how ExecuTorch
                         * writes per-channel int4) are XNNPACK's qb4w */
                        .blockwise = w->group > 0 || l.groups > 1};
  const bool grouped = p->blockwise;
  const int64_t kgroup = sg > 1 ? w->group : K; /* the caller's group length */
  const bool w4 = l.wbits == 4;
  for (int64_t n = 0; n < N; n++) {
    const int64_t pn = n / K_QNR, j = n % K_QNR;
    uint8_t *wp = (uint8_t *)k_qw_panel(p, pn);
    int32_t *cs = (int32_t *)k_qcsum(p, pn);
    float *sc = (float *)k_qscale(p, pn);
    for (int64_t k = 0; k < K; k++) {
      int64_t g = k / kgroup;
      int32_t zp = w->zero_point + (w->zero_points ? w->zero_points[n * sg + g] : 0);
      int32_t v = stored(w, n, k) - zp;
      if (v < -128 || v > 127) {
        if (err) *err = "a weight does not fit in int8 after its zero point";
        return NULL;
      }
      if (w4) wp[(k / 8) * K_QNR * 4 + j * 4 + k % 4] |= (uint8_t)((v & 15) << (k / 4 % 2 * 4));
      else wp[(k / 4) * K_QNR * 4 + j * 4 + k % 4] = (uint8_t)(int8_t)v;
      cs[(k / l.glen) * K_QNR + j] += v;
    }
    float *col = (float *)k_qcol(p, pn), ksum = 0.0f;
    for (int64_t g = 0; g < l.groups; g++) {
      /* internal groups are the caller's, or cut one scale */
      int64_t sgi = sg > 1 ? g * l.glen / kgroup : 0;
      const float s = w->scale ? w->scale[n * sg + sgi] : k_bf16_to_float(w->scale_bf16[n * sg + sgi]);
      sc[g * K_QNR + j] = grouped ? s : 1.0f;
      if (!grouped) col[j] = s;
      /* XNNPACK's ksum: chunk by chunk of the group, in float, in order */
      const int64_t k0 = g * l.glen, k1 = k0 + l.glen < K ? k0 + l.glen : K;
      for (int64_t c0 = k0; grouped && c0 < k1; c0 += chunk) {
        int32_t sum = 0;
        for (int64_t k = c0; k < c0 + chunk && k < k1; k++) sum += k_qw_value(p, pn, j, k);
        ksum = ksum - (float)sum * s;
      }
    }
    if (grouped) col[j] = 1.0f, col[K_QNR + j] = ksum;
    if (w->bias) ((float *)k_qbias(p, pn))[j] = w->bias[n];
  }
  return p;
}

int64_t k_qgemm_packed_n(const k_qgemm_packed *p) { return p->n; }
int64_t k_qgemm_packed_k(const k_qgemm_packed *p) { return p->k; }

/* ---- the generic microkernel -------------------------------------------- */

void k_qukr_generic(const k_qtile *t) {
  const k_qgemm_packed *p = t->p;
  const int64_t K = p->k;
  for (int r = 0; r < t->mr; r++) {
    const int8_t *a = t->a + r * t->sa;
    const int32_t zp = t->qp[r].zero_point, zr = k_qzr(p, zp);
    const float zo = (float)(zp + p->zoff), sa = t->qp[r].scale;
    for (int pj = 0; pj < t->np; pj++) {
      const int64_t panel = t->panel + pj;
      const int8_t *w = k_qw_panel(p, panel);
      const int32_t *cs = k_qcsum(p, panel);
      const float *sc = k_qscale(p, panel), *bias = k_qbias(p, panel), *col = k_qcol(p, panel);
      const int nc = pj == t->np - 1 ? t->nc : K_QNR;
      float f[K_QNR];
      for (int j = 0; j < K_QNR; j++) f[j] = col[K_QNR + j] * zo;
      for (int64_t g = 0; g < p->groups; g++) {
        int64_t k0 = g * p->glen, k1 = k0 + p->glen < K ? k0 + p->glen : K;
        int32_t s[K_QNR];
        for (int j = 0; j < K_QNR; j++) s[j] = -zr * cs[g * K_QNR + j];
        for (int64_t k = k0; k < k1; k++) {
          const int8_t *wk = w + (k / 4) * K_QNR * 4 + k % 4;
          for (int j = 0; j < K_QNR; j++) s[j] += (int32_t)a[k] * wk[j * 4];
        }
        for (int j = 0; j < K_QNR; j++) f[j] = fmaf((float)s[j], sc[g * K_QNR + j], f[j]);
      }
      float *c = t->c + r * t->sc + pj * K_QNR;
      for (int j = 0; j < nc; j++) {
        float v = fmaf(f[j] * sa, col[j], bias[j]);
        if (t->clamp) v = v < t->lo ? t->lo : v > t->hi ? t->hi : v;
        c[j] = v;
      }
    }
  }
}

/* ---- the driver ---------------------------------------------------------- */

#if defined(PTERUN_QGEMM_X86)
/* AVX-VNNI: CPUID leaf 7 subleaf 1, EAX bit 4 (older compilers' cpu
 * builtins do not know it) */
static bool has_avxvnni(void) {
  unsigned a, b, c, d;
  return __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a >> 4 & 1);
}
#endif

static qarch qarch_choose(void) {
  switch (k_isa_get()) {
#if defined(PTERUN_QGEMM_X86)
    case K_ISA_AVX512:
    case K_ISA_AVX2: {
      /* PTERUN_OPT_ISA=avx2-novnni runs the plain AVX2 kernel on a CPU with
       * VNNI (so tests cover it); AVX-512 without VNNI (Skylake-X) runs an
       * AVX2 kernel too */
      const char *env = getenv("PTERUN_OPT_ISA");
      const bool plain = env && !strcmp(env, "avx2-novnni");
      __builtin_cpu_init();
      if (!plain && k_isa_get() == K_ISA_AVX512 && __builtin_cpu_supports("avx512vnni") &&
          __builtin_cpu_supports("avx512bw")) {
        /* AMX where the OS allows it (PTERUN_OPT_ISA=avx512-noamx keeps
         * VNNI, so tests cover both) */
        if (!(env && !strcmp(env, "avx512-noamx")) && k_qamx_usable())
          return (qarch){16, 2, k_qukr_amx, "amx", true};
        return (qarch){6, 2, k_qukr_avx512vnni, "avx512vnni", true};
      }
      if (!plain && has_avxvnni()) return (qarch){3, 1, k_qukr_avxvnni, "avxvnni", false};
      return (qarch){16, 1, k_qukr_avx2, "avx2", false};
    }
#endif
#if defined(__aarch64__)
    case K_ISA_NEON: {
      /* PTERUN_OPT_ISA=neon-nodot runs the plain NEON kernel on a CPU
       * with the dot product (so tests cover both) */
      const char *env = getenv("PTERUN_OPT_ISA");
      if ((getauxval(AT_HWCAP) & HWCAP_ASIMDDP) && !(env && !strcmp(env, "neon-nodot")))
        return (qarch){4, 1, k_qukr_neondot, "neondot", false};
      return (qarch){4, 1, k_qukr_neon, "neon", false};
    }
#endif
    default: return (qarch){4, 1, k_qukr_generic, "generic", false};
  }
}

/* Chosen once (getenv, cpuid and the cpu builtins cost more than a decode
 * step's whole product on a small model), as k_isa_get does. */
static qarch g_qarch;
static pthread_once_t g_qarch_once = PTHREAD_ONCE_INIT;

/* The activation offset and ksum chunk of XNNPACK's kernels on this CPU
 * (see qgemm.h): its x86 VNNI kernels take unsigned activations, and its
 * packing sums 2 x kr weights at a time (kr 8 on x86, 4 for the aarch64
 * dot product, 1 elsewhere). From the CPU, not the kernel chosen here, so
 * that every kernel of a process computes the same bits. */
static int32_t g_zoff;
static int g_chunk;

static void arith_choose(void) {
  g_zoff = 0, g_chunk = 2;
#if defined(PTERUN_QGEMM_X86)
  __builtin_cpu_init();
  g_chunk = 16;
  if ((__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw")) || has_avxvnni())
    g_zoff = 128;
#elif defined(__aarch64__)
  if (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) g_chunk = 8;
#endif
}

static void qarch_init(void) {
  g_qarch = qarch_choose();
  arith_choose();
}

static qarch qarch_get(void) {
  pthread_once(&g_qarch_once, qarch_init);
  return g_qarch;
}

const char *k_qgemm_kernel(void) { return qarch_get().name; }

void k_qgemm_xnn_arith(int32_t *zoff, int *chunk) {
  pthread_once(&g_qarch_once, qarch_init);
  *zoff = g_zoff, *chunk = g_chunk;
}

k_qukr_fn k_qgemm_ukr(int *mr, int *np) {
  const qarch ar = qarch_get();
  *mr = ar.mr, *np = ar.np;
  return ar.ukr;
}

typedef struct qjob {
  const k_qgemm_desc *g;
  const int8_t *qa;
  int64_t sqa;
  const k_qd8_params *qp;
  qarch ar;
  int64_t mtiles, nblocks;
} qjob;

static void qjob_range(void *ctx, size_t b, size_t e) {
  const qjob *jb = ctx;
  const k_qgemm_desc *g = jb->g;
  const k_qgemm_packed *p = g->w;
  /* built once: a compound literal per tile is zeroed with rep stos, and
   * the microkernel's loads of it then wait for that store (13% of BERT
   * int8's time on a Xeon guest) */
  k_qtile t = {.p = p, .sa = jb->sqa, .sc = g->sc, .clamp = g->clamp, .lo = g->lo, .hi = g->hi};
  for (size_t i = b; i < e; i++) {
    /* consecutive tiles share a weight block (it stays in cache while
     * the row tiles stream by) */
    int64_t nb = (int64_t)i / jb->mtiles, mt = (int64_t)i % jb->mtiles;
    int64_t m0 = mt * jb->ar.mr, panel = nb * jb->ar.np;
    int np = (int)(p->panels - panel < jb->ar.np ? p->panels - panel : jb->ar.np);
    int64_t n_last = p->n - (panel + np - 1) * K_QNR;
    t.a = jb->qa + m0 * jb->sqa;
    t.qp = jb->qp + m0;
    t.mr = (int)(g->M - m0 < jb->ar.mr ? g->M - m0 : jb->ar.mr);
    t.panel = panel;
    t.np = np;
    t.nc = (int)(n_last < K_QNR ? n_last : K_QNR);
    t.c = g->c + m0 * g->sc + panel * K_QNR;
    jb->ar.ukr(&t);
  }
}

typedef struct qquant {
  const k_qgemm_desc *g;
  int8_t *q;
  int64_t ldq;
  k_qd8_params *qp;
} qquant;

static void quant_range(void *ctx, size_t b, size_t e) {
  const qquant *qq = ctx;
  const int64_t K = qq->g->w->k;
  k_qd8_quantize_rows((int64_t)(e - b), K, qq->g->a + (int64_t)b * qq->g->sa, qq->g->sa,
                      qq->q + (int64_t)b * qq->ldq, qq->ldq, qq->qp + b);
}

double k_qgemm_split_cost(const k_qgemm_packed *p, int64_t M) {
  /* int8 work is cheaper per multiply-add than float32: count it at half;
   * a product of few rows (a decode step's) is as long as its weights take
   * to stream in, about 8 of those units a byte, so it is split over the
   * pool too (each core brings its own share of the bandwidth) */
  const double flops = 2.0 * (double)M * (double)p->n * (double)p->k,
               wbytes = (double)p->panels * (double)p->kp * K_QNR * p->wbits / 8.0;
  return flops * 0.5 > wbytes * 8.0 ? flops * 0.5 : wbytes * 8.0;
}

size_t k_qgemm_scratch(int64_t M, int64_t K) {
  if (M <= 0 || K <= 0) return 0;
  return k_align64((size_t)(M * ((K + 63) / 64 * 64))) + k_align64((size_t)M * sizeof(k_qd8_params));
}

bool k_qgemm(const k_qgemm_desc *g) {
  const k_qgemm_packed *p = g->w;
  if (g->M <= 0) return true;
  qjob jb = {.g = g, .qa = g->qa, .sqa = g->sqa, .qp = g->qparams, .ar = qarch_get()};
  void *heap = NULL;
  if (!g->qa) {
    size_t need = k_qgemm_scratch(g->M, p->k);
    void *buf = g->scratch;
    if (!buf || g->scratch_bytes < need) {
      heap = aligned_alloc(64, need);
      if (!heap) return false;
      buf = heap;
    }
    qquant qq = {.g = g, .q = buf, .ldq = (p->k + 63) / 64 * 64};
    qq.qp = (k_qd8_params *)((char *)buf + k_align64((size_t)(g->M * qq.ldq)));
    if (g->parallel) k_parallel_for((size_t)g->M, 4.0 * (double)g->M * (double)p->k, quant_range, &qq);
    else quant_range(&qq, 0, (size_t)g->M);
    jb.qa = qq.q, jb.sqa = qq.ldq, jb.qp = qq.qp;
  }
  jb.mtiles = (g->M + jb.ar.mr - 1) / jb.ar.mr;
  jb.nblocks = (p->panels + jb.ar.np - 1) / jb.ar.np;
  size_t tiles = (size_t)(jb.mtiles * jb.nblocks);
  const double cost = k_qgemm_split_cost(p, g->M);
  if (g->parallel && cost >= K_PAR_MIN_FLOPS) k_parallel_for(tiles, cost, qjob_range, &jb);
  else qjob_range(&jb, 0, tiles);
  free(heap);
  return true;
}
