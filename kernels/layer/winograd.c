/* Winograd F(m x m, 3 x 3) convolution (see klayer.h): the filter
 * transformed and packed once for k_sgemm, then per block of tiles the
 * input transform, one product per tile point, the output transform with
 * bias and clamp. Blocks stay in the thread's cache slot from one step to
 * the next; threads take blocks of tiles, or (few tiles: small maps) blocks
 * of output channels. */
#include <stdlib.h>

#define WV 4
#define WINO_SUFFIX generic
#include "winograd_impl.h"

typedef void (*wino_in_fn)(const k_wino_tile_in *t);
typedef void (*wino_out_fn)(const k_wino_tile_out *t);
typedef void (*wino_filter_fn)(const k_wino_filter *f);

static wino_filter_fn filter_op(void) {
  switch (k_isa_get()) {
#if defined(__x86_64__)
    case K_ISA_AVX512: return k_wino_filter_avx512;
    case K_ISA_AVX2: return k_wino_filter_avx2;
#endif
    default: return k_wino_filter_generic;
  }
}

static void ops(wino_in_fn *in, wino_out_fn *out) {
  switch (k_isa_get()) {
#if defined(__x86_64__)
    case K_ISA_AVX512: *in = k_wino_in_avx512, *out = k_wino_out_avx512; return;
    case K_ISA_AVX2: *in = k_wino_in_avx2, *out = k_wino_out_avx2; return;
#endif
    default: *in = k_wino_in_generic, *out = k_wino_out_generic; return;
  }
}

/* Scratch a thread's tile block works in: its transformed inputs and
 * products stay in L2 from one step to the next (2 MB a core here; 1 MB
 * split 14x14 maps into two blocks, each reading the filter). */
#define WINO_BLOCK_BYTES ((size_t)3 << 19)
/* Output channels per packed filter block: the unit threads split when a
 * map has too few tiles to go round. */
#define WINO_OB 128

int32_t k_wino_choose(int64_t C, int64_t OC, int64_t OH, int64_t OW) {
  const char *e = getenv("PTERUN_CONV_WINOGRAD");
  if (e && e[0] == '0' && !e[1]) return 0;
  if (e && (e[0] == '2' || e[0] == '4') && !e[1]) return e[0] - '0';
  (void)C, (void)OC;
  /* Measured on ResNet-18's layers (bench_winograd, 1 thread, AVX-512),
   * time against the im2col product: F(4x4) 0.35x at 56x56, 0.5x at 28x28;
   * at 14x14 F(2x2) 0.75x, F(4x4) 0.85x; at 7x7 both break even at best
   * (F(4x4) 1.8x): with few tiles the products are as many as the filter's
   * transformed points, read from memory once per call (4x the direct
   * filter's bytes for F(4x4), 1.8x for F(2x2)), and a 2x2 grid of 6x6
   * tiles gives the product 4 rows. */
  const int64_t t4 = ((OH + 3) / 4) * ((OW + 3) / 4);
  if (t4 >= 36) return 4;
  if (OH * OW >= 100) return 2;
  return 0;
}

bool k_wino_plan_init(k_wino_plan *p, int64_t C, int64_t OC, int64_t H, int64_t W, int64_t OH, int64_t OW,
                      int32_t pt, int32_t pl, int32_t m) {
  memset(p, 0, sizeof *p);
  if ((m != 2 && m != 4) || C < 1 || OC < 1 || H < 1 || W < 1 || OH < 1 || OW < 1 || pt < 0 || pl < 0)
    return false;
  /* bounds that keep every size here far from overflow */
  const int64_t lim = (int64_t)1 << 20;
  if (C > lim || OC > lim || H > lim || W > lim || OH > lim || OW > lim || pt > lim || pl > lim) return false;
  const int64_t a = m + 2, pts = a * a;
  p->C = C, p->OC = OC, p->H = H, p->W = W, p->OH = OH, p->OW = OW, p->pt = pt, p->pl = pl, p->m = m;
  p->tiles_h = (OH + m - 1) / m, p->tiles_w = (OW + m - 1) / m;
  p->ob = OC <= WINO_OB ? OC : WINO_OB;
  p->nob = (OC + p->ob - 1) / p->ob;
  /* as many tiles a block as fit the budget (at least 16 rows for the
   * product, at most 128), then the blocks evened out: each block reads
   * the whole packed filter once, which on small maps (few tiles, many
   * channels) is what the time goes to */
  int64_t tmax = (int64_t)(WINO_BLOCK_BYTES / sizeof(float)) / (pts * (C + p->ob));
  if (tmax < 16) tmax = 16;
  if (tmax > 128) tmax = 128;
  const int64_t tiles = p->tiles_h * p->tiles_w, nb = (tiles + tmax - 1) / tmax;
  p->tb = ((tiles + nb - 1) / nb + 7) / 8 * 8;
  p->block_floats = (k_sgemm_packed_b_floats(p->ob, C) + 15) & ~(size_t)15;
  p->u_floats = (size_t)(pts * p->nob) * p->block_floats;
  const int64_t tb = p->tb;
  p->slot_bytes = k_align64((size_t)(pts * tb * C) * sizeof(float)) +
                  k_align64((size_t)(pts * tb * p->ob) * sizeof(float)) +
                  k_align64(k_sgemm_scratch_min(tb, p->ob, C));
  return true;
}

size_t k_wino_scratch(const k_wino_plan *p) { return p->slot_bytes * k_slots() + 64; }

size_t k_wino_pack_tmp_floats(const k_wino_plan *p) {
  return (size_t)((p->m + 2) * (p->m + 2)) * (size_t)(p->C * p->OC);
}

typedef struct pack_job {
  const k_wino_plan *p;
  k_wino_filter f;
  wino_filter_fn fn;
  float *u;
} pack_job;

static void filter_range(void *ctx, size_t b, size_t e) {
  const pack_job *j = ctx;
  k_wino_filter f = j->f;
  f.ic0 = (int64_t)b, f.ic1 = (int64_t)e;
  j->fn(&f);
}

/* (tile point, output channel block) pairs */
static void pack_range(void *ctx, size_t b, size_t e) {
  const pack_job *j = ctx;
  const k_wino_plan *p = j->p;
  for (size_t i = b; i < e; i++) {
    const int64_t pt = (int64_t)i / p->nob, blk = (int64_t)i % p->nob, o0 = blk * p->ob;
    const int64_t on = p->OC - o0 < p->ob ? p->OC - o0 : p->ob;
    k_sgemm_pack_b(j->f.tmp + pt * p->C * p->OC + o0, p->OC, 1, on, p->C, j->u + (size_t)i * p->block_floats);
  }
}

void k_wino_pack_with(const k_wino_plan *p, const float *w, int64_t s_oc, int64_t s_ic, int64_t s_kh,
                      int64_t s_kw, float *u, float *tmp) {
  const int64_t a = p->m + 2, pts = a * a, C = p->C, OC = p->OC;
  /* on the pool: per call, a serial transform was what the second thread
   * waited for */
  pack_job j = {p, {p->m, w, s_oc, s_ic, s_kh, s_kw, C, OC, 0, C, tmp}, filter_op(), u};
  const double ops = (double)(pts * C * OC);
  k_parallel_for((size_t)C, ops * 4.0, filter_range, &j);
  k_parallel_for((size_t)(pts * p->nob), ops * 2.0, pack_range, &j);
}

/* One tile point of the transformed filter, packed straight from w:
 * U[i][j] = sum_kl (G[i][k] G[j][l]) g[k][l], the nonzero products of the
 * nine in c, summed in double along the filter's unit-stride axis (input
 * channels in XNNPACK's [OC][3][3][C], output channels in a transposed
 * [C][3][3][OC]) by the ISA's row kernel. */
typedef void (*wino_row_fn)(const float *w, const int64_t *off, const double *c, int nt, int64_t X,
                            float *out);

typedef struct pack_point {
  const float *w;
  int64_t s_oc, s_ic, s_kh, s_kw, o0;
  int nt;
  int64_t off[9];
  double c[9];
  wino_row_fn row;
} pack_point;

static void pack_point_panel(const void *user, int64_t k0, int64_t kc, int64_t j0, int64_t nr, int64_t NR,
                             float *dst) {
  const pack_point *pp = user;
  const float *w = pp->w + (pp->o0 + j0) * pp->s_oc + k0 * pp->s_ic;
  if (pp->s_oc == 1) {
    /* a panel row is nr output channels, contiguous in w */
    for (int64_t k = 0; k < kc; k++) {
      pp->row(w + k * pp->s_ic, pp->off, pp->c, pp->nt, nr, dst + k * NR);
      for (int64_t n = nr; n < NR; n++) dst[k * NR + n] = 0.0f;
    }
    return;
  }
  if (pp->s_ic == 1) {
    /* a panel column is kc input channels, contiguous in w */
    float col[256];
    for (int64_t n = 0; n < NR; n++) {
      if (n >= nr) {
        for (int64_t k = 0; k < kc; k++) dst[k * NR + n] = 0.0f;
        continue;
      }
      for (int64_t k = 0; k < kc; k += 256) {
        const int64_t kn = kc - k < 256 ? kc - k : 256;
        pp->row(w + n * pp->s_oc + k, pp->off, pp->c, pp->nt, kn, col);
        for (int64_t q = 0; q < kn; q++) dst[(k + q) * NR + n] = col[q];
      }
    }
    return;
  }
  for (int64_t n = 0; n < NR; n++)
    for (int64_t k = 0; k < kc; k++) {
      double s = 0.0;
      if (n < nr)
        for (int t = 0; t < pp->nt; t++) s += pp->c[t] * w[n * pp->s_oc + k * pp->s_ic + pp->off[t]];
      dst[k * NR + n] = (float)s;
    }
}

typedef struct point_job {
  const k_wino_plan *p;
  const float *w;
  int64_t s_oc, s_ic, s_kh, s_kw;
  float *u;
  wino_row_fn row;
} point_job;

/* (tile point, output channel block) pairs */
static void point_range(void *ctx, size_t b, size_t e) {
  static const double G4[6][3] = {{1.0 / 4, 0, 0},
                                  {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                  {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                  {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                  {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                  {0, 0, 1}};
  static const double G2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  const point_job *j = ctx;
  const k_wino_plan *p = j->p;
  const int64_t a = p->m + 2;
  for (size_t it = b; it < e; it++) {
    const int64_t q = (int64_t)it / p->nob, blk = (int64_t)it % p->nob, i = q / a, jj = q % a;
    pack_point pp = {j->w, j->s_oc, j->s_ic, j->s_kh, j->s_kw, blk * p->ob, 0, {0}, {0}, j->row};
    for (int k = 0; k < 3; k++)
      for (int l = 0; l < 3; l++) {
        const double c = p->m == 4 ? G4[i][k] * G4[jj][l] : G2[i][k] * G2[jj][l];
        if (c != 0.0) pp.off[pp.nt] = k * j->s_kh + l * j->s_kw, pp.c[pp.nt++] = c;
      }
    const int64_t on = p->OC - pp.o0 < p->ob ? p->OC - pp.o0 : p->ob;
    float *dst = j->u + (size_t)it * p->block_floats;
    k_sgemm_pack_b_fn(pack_point_panel, &pp, on, p->C, dst);
    /* the gap after the panels (alignment, a short last block) is never
     * read: zero anyway */
    const size_t used = k_sgemm_packed_b_floats(on, p->C);
    memset(dst + used, 0, (p->block_floats - used) * sizeof(float));
  }
}

typedef struct trans_job {
  const float *w;
  int64_t s_oc, s_ic, s_kh, s_kw, C, OC;
  const float *scale;
  float *t;
} trans_job;

/* input channels ic0 .. ic1 of w into t[(ic*9 + tap)*OC + oc] (scaled per
 * output channel: the float product conv_bn's folded filter would hold) */
static void trans_range(void *ctx, size_t b, size_t e) {
  const trans_job *j = ctx;
  for (int64_t ic = (int64_t)b; ic < (int64_t)e; ic++) {
    float *t = j->t + ic * 9 * j->OC;
    const float *wc = j->w + ic * j->s_ic;
    for (int64_t oc = 0; oc < j->OC; oc++) {
      const float *g = wc + oc * j->s_oc;
      const float a = j->scale ? j->scale[oc] : 1.0f;
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++) {
          const float v = g[k * j->s_kh + l * j->s_kw];
          t[(k * 3 + l) * j->OC + oc] = j->scale ? v * a : v;
        }
    }
  }
}

size_t k_wino_pack_copy_floats(const k_wino_plan *p) { return (size_t)(9 * p->C * p->OC); }

bool k_wino_pack_scaled(const k_wino_plan *p, const float *w, int64_t s_oc, int64_t s_ic, int64_t s_kh,
                        int64_t s_kw, const float *scale, float *copy, float *u) {
  if (scale && !copy) return false;
  point_job j = {p, w, s_oc, s_ic, s_kh, s_kw, u, k_wino_row_generic};
  switch (k_isa_get()) {
#if defined(__x86_64__)
    case K_ISA_AVX512: j.row = k_wino_row_avx512; break;
    case K_ISA_AVX2: j.row = k_wino_row_avx2; break;
#endif
    default: break;
  }
  const int64_t a = p->m + 2, C = p->C, OC = p->OC;
  /* Packed straight from w, a panel row (or column) is a strided gather
   * per float; from a copy with output channels contiguous ([C][3][3][OC])
   * every panel row is one vectorized row of the filter: ResNet-18's
   * filters took 35 ms to pack at load from the exporter's [OC][C][3][3]. */
  if (copy) {
    trans_job tj = {w, s_oc, s_ic, s_kh, s_kw, C, OC, scale, copy};
    k_parallel_for((size_t)C, (double)(9 * C * OC) * 2.0, trans_range, &tj);
    j.w = copy, j.s_oc = 1, j.s_ic = 9 * OC, j.s_kh = 3 * OC, j.s_kw = OC;
  }
  /* on the pool: ResNet-18's filters took 40-60 ms to transform serially
   * at load */
  const double ops = (double)(a * a) * (double)C * (double)OC * 6.0;
  k_parallel_for((size_t)(a * a * p->nob), ops, point_range, &j);
  return true;
}

void k_wino_pack(const k_wino_plan *p, const float *w, int64_t s_oc, int64_t s_ic, int64_t s_kh, int64_t s_kw,
                 float *u) {
  (void)k_wino_pack_scaled(p, w, s_oc, s_ic, s_kh, s_kw, NULL, NULL, u);
}

typedef struct wino_job {
  const k_wino_desc *d;
  const k_wino_plan *p;
  wino_in_fn in;
  wino_out_fn out;
  uint8_t *scratch;
  int64_t tiles, tbe, nb, ns, items, chunks; /* tbe: tiles a block (at most p->tb) */
  bool even;                                 /* blocks of nearly equal tiles (see block_start), else of tbe */
} wino_job;

/* First tile of block b: b * tbe, or (even) b's share of the tiles rounded
 * to the product's 8-row tiles, so that each thread's blocks add up to
 * nearly the same number of tiles (49 tiles in blocks of 16 gave one of
 * two threads 32 and the other 17). */
static int64_t block_start(const wino_job *j, int64_t b) {
  int64_t t = j->even ? ((b * j->tiles + j->nb / 2) / j->nb + 4) / 8 * 8 : b * j->tbe;
  return t < j->tiles ? t : j->tiles;
}

static void wino_chunk(void *ctx, size_t c0, size_t c1) {
  const wino_job *j = ctx;
  const k_wino_desc *d = j->d;
  const k_wino_plan *p = j->p;
  const int64_t a = p->m + 2, pts = a * a, C = p->C, tb = p->tb, ob = p->ob, per = p->tiles_h * p->tiles_w;
  for (size_t c = c0; c < c1; c++) {
    uint8_t *slot = j->scratch + c * p->slot_bytes;
    float *v = (float *)slot;
    float *mm = (float *)(slot + k_align64((size_t)(pts * tb * C) * sizeof(float)));
    float *gs = (float *)((uint8_t *)mm + k_align64((size_t)(pts * tb * ob) * sizeof(float)));
    const size_t gs_bytes = k_align64(k_sgemm_scratch_min(tb, ob, C));
    const int64_t i0 = (int64_t)c * j->items / j->chunks, i1 = ((int64_t)c + 1) * j->items / j->chunks;
    int64_t have = -1; /* tile block whose inputs v holds */
    for (int64_t it = i0; it < i1; it++) {
      const int64_t blk = it / j->ns, s = it % j->ns, t0 = block_start(j, blk);
      const int64_t tn = blk + 1 < j->nb ? block_start(j, blk + 1) - t0 : j->tiles - t0;
      if (tn <= 0) continue;
      if (blk != have) {
        for (int64_t t = 0; t < tn; t++) {
          const int64_t g = t0 + t, n = g / per, r = g % per, ty = r / p->tiles_w, tx = r % p->tiles_w;
          k_wino_tile_in ti = {
              p->m, d->x + n * d->sxn, d->sxc, d->sxh, d->sxw, C, ty * p->m - p->pt, tx * p->m - p->pl, p->H,
              p->W, v + t * C,         tb * C};
          j->in(&ti);
        }
        have = blk;
      }
      const int64_t b0 = s * p->nob / j->ns, b1 = (s + 1) * p->nob / j->ns;
      for (int64_t b = b0; b < b1; b++) {
        const int64_t o0 = b * ob, on = p->OC - o0 < ob ? p->OC - o0 : ob;
        k_sgemm_desc g;
        memset(&g, 0, sizeof g);
        g.M = tn, g.N = on, g.K = C;
        g.sa0 = C, g.sa1 = 1;
        g.sc0 = ob, g.sc1 = 1;
        g.alpha = 1.0f;
        g.scratch = gs, g.scratch_bytes = gs_bytes;
        for (int64_t q = 0; q < pts; q++) {
          g.a = v + q * tb * C;
          g.b_packed = d->u + (size_t)(q * p->nob + b) * p->block_floats;
          g.c = mm + q * tb * ob;
          k_sgemm(&g);
        }
        for (int64_t t = 0; t < tn; t++) {
          const int64_t gt = t0 + t, n = gt / per, r = gt % per, oy = r / p->tiles_w * p->m,
                        ox = r % p->tiles_w * p->m;
          k_wino_tile_out to = {p->m,
                                mm + t * ob,
                                tb * ob,
                                on,
                                d->bias ? d->bias + o0 : NULL,
                                d->clamp,
                                d->lo,
                                d->hi,
                                d->y + n * d->syn + o0 * d->syc + oy * d->syh + ox * d->syw,
                                d->syc,
                                d->syh,
                                d->syw,
                                (int)(p->OH - oy < p->m ? p->OH - oy : p->m),
                                (int)(p->OW - ox < p->m ? p->OW - ox : p->m)};
          j->out(&to);
        }
      }
    }
  }
}

bool k_wino_conv(const k_wino_desc *d) {
  const k_wino_plan *p = d->p;
  if (d->N <= 0) return true;
  uint8_t *s = (uint8_t *)(((uintptr_t)d->scratch + 63) & ~(uintptr_t)63);
  size_t bytes = d->scratch && d->scratch_bytes >= (size_t)(s - (uint8_t *)d->scratch)
                     ? d->scratch_bytes - (size_t)(s - (uint8_t *)d->scratch)
                     : 0;
  size_t slots = bytes / p->slot_bytes;
  if (slots < 1) return false;
  wino_job j = {d, p, NULL, NULL, s, d->N * p->tiles_h * p->tiles_w, p->tb, 0, 1, 0, 1, false};
  ops(&j.in, &j.out);
  j.nb = (j.tiles + p->tb - 1) / p->tb;
  const int64_t a = p->m + 2;
  const double flops = 2.0 * (double)(a * a) * (double)j.tiles * (double)p->C * (double)p->OC;
  if (d->parallel && flops >= K_PAR_MIN_FLOPS && slots > 1) {
    size_t t = k_slots();
    if (slots > t) slots = t;
    /* too few tile blocks to go round: split the output channel blocks too */
    if (j.nb < 2 * (int64_t)slots) {
      j.ns = (2 * (int64_t)slots + j.nb - 1) / j.nb;
      if (j.ns > p->nob) j.ns = p->nob;
    }
    /* as many blocks a thread (3 blocks of a 56x56 map on 2 threads: 4),
     * of nearly equal tiles, none over a slot's p->tb */
    const int64_t sl = (int64_t)slots;
    int64_t nb2 = j.nb;
    while ((nb2 * j.ns) % sl) nb2++;
    wino_job e = j;
    e.nb = nb2, e.even = true;
    bool fits = nb2 <= j.tiles && nb2 <= 4096 && j.tiles <= ((int64_t)1 << 40); /* b * tiles in range */
    for (int64_t b = 0; b < nb2 && fits; b++)
      fits = (b + 1 < nb2 ? block_start(&e, b + 1) : j.tiles) - block_start(&e, b) <= p->tb;
    if (fits) j.nb = nb2, j.even = true;
  } else {
    slots = 1;
  }
  j.items = j.nb * j.ns;
  j.chunks = j.items < (int64_t)slots ? j.items : (int64_t)slots;
  k_parallel_chunks((size_t)j.chunks, wino_chunk, &j);
  return true;
}
