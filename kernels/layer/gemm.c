/* The float32 matrix product of the kernel layer (see klayer.h): blocking,
 * packing, splitting over the pool, edge tiles, the generic microkernel.
 * The ISA microkernels live in gemm_<isa>.c. */
#include <pterun/threadpool.h>

#include "simd.h"

typedef struct gemm_arch {
  int64_t MR, NR;
  k_ukr_fn ukr;
  k_axpy_fn axpy;
  k_rows_fn rows; /* NULL: no rows kernel (see rows_panels) */
} gemm_arch;

static gemm_arch arch(void) {
  switch (k_isa_get()) {
    case K_ISA_AVX512: return (gemm_arch){8, 32, k_ukr_avx512_8x32, k_axpy_avx512, k_ukr_avx512_rows_a};
    case K_ISA_AVX2: return (gemm_arch){4, 24, k_ukr_avx2_4x24, k_axpy_avx2, k_ukr_avx2_rows_a};
    case K_ISA_NEON: return (gemm_arch){8, 12, k_ukr_neon_8x12, k_axpy_neon, NULL};
    default: return (gemm_arch){4, 16, k_ukr_generic_4x16, k_axpy_generic, NULL};
  }
}

/* KC: a B panel (KC x NR floats) stays in L1 while every row panel of the
 * block streams past it; MC bounds the packed A block (MC x KC) to L2.
 * Without caller scratch the buffers live on the stack, so the blocks are
 * smaller there (32 KB in all). */
#define KC 256
#define MC 256
#define KC_STACK 128
#define MC_STACK 32
#define NR_MAX K_SGEMM_NR_MAX
/* Up to these sizes (M*N*K) the product straight from the operands beat
 * the packed one on a 2-core AVX-512 Xeon, one thread, shapes of 4..128
 * (the AVX-512 direct kernel has the packed one's 8x32 register tile; the
 * AVX2 one only 4x16). Above them packing pays, and the pool may help. */
#define DIRECT_MAX_FLOPS_AVX512 524288.0
#define DIRECT_MAX_FLOPS_AVX2 65536.0
/* NEON's direct tile is AVX2's (4 x 16); its bound is AVX2's too, not
 * measured: no aarch64 hardware here, and emulation says nothing of speed. */
#define DIRECT_MAX_FLOPS_NEON 65536.0
/* B transposed: rows of A up to this many run as dot products (see
 * dots_cols). */
#ifndef DOTS_MAX_M
#define DOTS_MAX_M 4
#endif
#define MR_MAX K_SGEMM_MR_MAX
/* A read in place (not packed) up to this many columns of C */
#ifndef A_IN_PLACE_MAX_N
#define A_IN_PLACE_MAX_N 1024
#endif

/* AVX2: A read in place up to this many columns (see blocked) */
#ifndef AVX2_A_IN_PLACE_MAX_N
#define AVX2_A_IN_PLACE_MAX_N 256
#endif

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t round_up(int64_t a, int64_t m) { return (a + m - 1) / m * m; }
static size_t a_bytes(int64_t M, int64_t K, int64_t kcb, int64_t mcb) {
  return k_align64((size_t)(round_up(min64(M, mcb), MR_MAX) * min64(K, kcb)) * sizeof(float));
}
static size_t b_bytes(int64_t K, int64_t kcb, int64_t group) {
  return k_align64((size_t)(min64(K, kcb) * NR_MAX * group) * sizeof(float));
}

/* Column panels of a dense B packed together, row by row: a panel alone
 * reads 64..128 bytes of each of KC rows that are often a page or more
 * apart (a linear's weight), which the prefetchers do not follow; packing
 * was a quarter of GPT-2's time. Eight panels read 0.5..1 KB of each row. */
#define B_GROUP 8

static int64_t b_group(int64_t N) {
  int64_t np = (N + arch().NR - 1) / arch().NR;
  return np < B_GROUP ? np : B_GROUP;
}

static size_t scratch_for(int64_t M, int64_t N, int64_t K, size_t slots) {
  if (M <= 0 || N <= 0 || K <= 0) return 0;
  /* one group of B panels per slot, each on its own cache lines */
  return a_bytes(M, K, KC, MC) + slots * b_bytes(K, KC, b_group(N));
}

size_t k_sgemm_scratch(int64_t M, int64_t N, int64_t K) { return scratch_for(M, N, K, k_slots()); }
size_t k_sgemm_scratch_min(int64_t M, int64_t N, int64_t K) { return scratch_for(M, N, K, 1); }
size_t k_sgemm_batched_scratch(int64_t M, int64_t N, int64_t K) {
  size_t one = k_align64(k_sgemm_scratch_min(M, N, K)) * k_slots(), whole = k_sgemm_scratch(M, N, K);
  return one > whole ? one : whole;
}

static void pack_a(const k_sgemm_desc *g, int64_t m0, int64_t mc, int64_t k0, int64_t kc, int64_t MR,
                   float *dst) {
  for (int64_t p = 0; p < mc; p += MR) {
    int64_t mr = min64(MR, mc - p);
    const float *src = g->a + (m0 + p) * g->sa0 + k0 * g->sa1;
    if (g->sa1 == 1 && mr == 4 && MR == 4 && k_isa_get() == K_ISA_AVX2) {
      k_pack_a4_avx2(src, g->sa0, kc, dst);
    } else if (g->sa1 == 1) {
      for (int64_t i = 0; i < mr; i++) {
        const float *row = src + i * g->sa0;
        for (int64_t k = 0; k < kc; k++) dst[k * MR + i] = row[k];
      }
    } else {
      for (int64_t k = 0; k < kc; k++)
        for (int64_t i = 0; i < mr; i++) dst[k * MR + i] = src[i * g->sa0 + k * g->sa1];
    }
    for (int64_t i = mr; i < MR; i++)
      for (int64_t k = 0; k < kc; k++) dst[k * MR + i] = 0.0f;
    dst += kc * MR;
  }
}

static void pack_b_dense(const k_sgemm_desc *g, int64_t k0, int64_t kc, int64_t j0, int64_t nr, int64_t NR,
                         float *dst) {
  const float *src = g->b + k0 * g->sb0 + j0 * g->sb1;
  if (g->sb1 == 1) {
    for (int64_t k = 0; k < kc; k++) {
      memcpy(dst + k * NR, src + k * g->sb0, (size_t)nr * sizeof(float));
      for (int64_t j = nr; j < NR; j++) dst[k * NR + j] = 0.0f;
    }
  } else if (g->sb0 == 1 && kc >= 8 && nr >= 8 &&
             (k_isa_get() == K_ISA_AVX2 || k_isa_get() == K_ISA_AVX512)) {
    /* B transposed (linear's weight) by 8x8 register blocks: a scalar
     * gather here cost half the products at 64 rows of A */
    k_transpose4_avx2(src, g->sb1, dst, NR, kc, nr);
    for (int64_t k = 0; k < kc; k++)
      for (int64_t j = nr; j < NR; j++) dst[k * NR + j] = 0.0f;
  } else {
    /* B transposed (linear's weight): walk it along its contiguous dim */
    for (int64_t j = 0; j < nr; j++) {
      const float *col = src + j * g->sb1;
      for (int64_t k = 0; k < kc; k++) dst[k * NR + j] = col[k * g->sb0];
    }
    for (int64_t k = 0; k < kc; k++)
      for (int64_t j = nr; j < NR; j++) dst[k * NR + j] = 0.0f;
  }
}

/* Panels j0, j0 + NR, ... (`np` of them, the last `nlast` wide) of dense
 * B with unit column stride, panel p at dst + p * kc * NR. */
static void pack_b_group(const k_sgemm_desc *g, int64_t k0, int64_t kc, int64_t j0, int64_t np, int64_t nlast,
                         int64_t NR, float *dst) {
  for (int64_t k = 0; k < kc; k++) {
    const float *row = g->b + (k0 + k) * g->sb0 + j0;
    for (int64_t p = 0; p < np; p++) {
      int64_t nr = p == np - 1 ? nlast : NR;
      float *d = dst + p * kc * NR + k * NR;
      memcpy(d, row + p * NR, (size_t)nr * sizeof(float));
      for (int64_t j = nr; j < NR; j++) d[j] = 0.0f;
    }
  }
}

static inline float clampf(float v, float lo, float hi) {
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

/* v plus the bias terms of element (i, j), beta applied, added one by one
 * (the order the microkernels use). */
static inline float with_bias(const k_sgemm_desc *g, float v, int64_t i, int64_t j) {
  if (g->beta == 0.0f) return v;
  if (g->row_bias) v += g->beta * g->row_bias[i];
  if (g->col_bias) v += g->beta * g->col_bias[j];
  if (g->bias) v += g->beta * g->bias[i * g->sbias0 + j * g->sbias1];
  return v;
}

/* Element (i, j) of C from its scaled product v: bias terms, accumulation
 * onto the old value, clamp (the scalar paths' one epilogue). */
static inline void put(const k_sgemm_desc *g, float *c, float v, int64_t i, int64_t j, bool accumulate) {
  v = with_bias(g, v, i, j);
  v = accumulate ? *c + v : v;
  *c = g->clamp ? clampf(v, g->lo, g->hi) : v;
}

typedef struct gemm_job {
  const k_sgemm_desc *g;
  gemm_arch ar;
  int64_t sc1;
  int64_t k0, kc, m0, mc;
  int64_t npanels, mgroups, mpanels, items, chunks;
  const float *apack;
  float *bpack; /* slot 0; slot i at bpack + i * bstride */
  size_t bstride;
  int64_t group;     /* B panels a slot holds (packed together when B is dense) */
  bool first, last;  /* first K slice: write (bias), later ones accumulate; last: clamp */
  bool direct;       /* full tiles go straight to C (unit column stride, no bias matrix) */
  bool a_in_place;   /* A's rows read where they are, not packed (see blocked) */
  bool per_thread;   /* B slot of the running thread (pool thread index), not of the chunk */
  const float *bpre; /* B packed at load (k_sgemm_pack_b), or NULL */
} gemm_job;

/* The microkernel on row panel ap: packed, or A's own rows from i0, k0. */
static void run_ukr(const gemm_job *jb, const float *ap, int64_t i0, int64_t mr, const float *bp, float *c,
                    int64_t ldc, const k_tile_epi *e, const char *pf, int64_t npf) {
  if (jb->a_in_place && jb->ar.ukr == k_ukr_avx2_4x24) {
    const k_sgemm_desc *g = jb->g;
    k_ukr_avx2_4x24_a(jb->kc, g->a + i0 * g->sa0 + jb->k0, g->sa0, mr, jb->ar.NR, bp, c, ldc, e, NULL);
  } else if (jb->a_in_place) {
    const k_sgemm_desc *g = jb->g;
    /* up to four rows over B packed at load: the tile's other rows would
     * be copies (a decode step) */
    if (mr <= 4 && jb->bpre)
      k_ukr_avx512_rows_a(jb->kc, g->a + i0 * g->sa0 + jb->k0, g->sa0, mr, 1, jb->ar.NR, bp, 0, c, ldc, e,
                          NULL);
    else
      k_ukr_avx512_8x32_a(jb->kc, g->a + i0 * g->sa0 + jb->k0, g->sa0, mr, jb->ar.NR, bp, c, ldc, e, NULL, pf,
                          npf);
  } else {
    for (int64_t l = 0; l < npf; l++) __builtin_prefetch(pf + l * 64, 0, 2);
    jb->ar.ukr(jb->kc, ap, bp, c, ldc, e);
  }
}

/* pf, npf: cache lines of the next pre-packed panel to prefetch meanwhile */
static void tile(const gemm_job *jb, const float *ap, const float *bp, int64_t i0, int64_t mr, int64_t j0,
                 int64_t nr, const char *pf, int64_t npf) {
  const k_sgemm_desc *g = jb->g;
  const int64_t MR = jb->ar.MR, NR = jb->ar.NR;
  bool acc = g->accumulate || !jb->first;
  float beta = g->beta;
  const float *rb = jb->first && beta != 0.0f && g->row_bias ? g->row_bias + i0 : NULL;
  const float *cb = jb->first && beta != 0.0f && g->col_bias ? g->col_bias + j0 : NULL;
  const float *bm = jb->first && beta != 0.0f && g->bias ? g->bias + i0 * g->sbias0 + j0 * g->sbias1 : NULL;
  bool clamp = g->clamp && jb->last;
  float *c = g->c + i0 * g->sc0 + j0 * jb->sc1;
  /* A in place: partial tiles and the clamp in the kernel's masked store
   * (a 1x1 convolution's 16 or 24 columns and ReLU6 went through tmp and
   * scalar passes that cost more than its short K's products) */
  if (jb->direct && jb->a_in_place && jb->ar.ukr == k_ukr_avx512_8x32) {
    k_tile_epi e = {g->alpha, beta, rb, cb, acc};
    const float lohi[2] = {g->lo, g->hi};
    const float *ai = g->a + i0 * g->sa0 + jb->k0;
    if (mr <= 4 && jb->bpre) /* the rows kernel (see tile_rows) */
      k_ukr_avx512_rows_a(jb->kc, ai, g->sa0, mr, 1, nr, bp, 0, c, g->sc0, &e, clamp ? lohi : NULL);
    else k_ukr_avx512_8x32_a(jb->kc, ai, g->sa0, mr, nr, bp, c, g->sc0, &e, clamp ? lohi : NULL, pf, npf);
    return;
  }
  if (jb->direct && mr == MR && nr == NR) {
    k_tile_epi e = {g->alpha, beta, rb, cb, acc};
    run_ukr(jb, ap, i0, mr, bp, c, g->sc0, &e, pf, npf);
    if (clamp)
      for (int64_t i = 0; i < mr; i++)
        for (int64_t j = 0; j < nr; j++) c[i * g->sc0 + j] = clampf(c[i * g->sc0 + j], g->lo, g->hi);
    return;
  }
  float tmp[MR_MAX * NR_MAX] __attribute__((aligned(64)));
  k_tile_epi e = {1.0f, 0.0f, NULL, NULL, false};
  run_ukr(jb, ap, i0, mr, bp, tmp, NR, &e, pf, npf);
  for (int64_t i = 0; i < mr; i++)
    for (int64_t j = 0; j < nr; j++) {
      float v = g->alpha * tmp[i * NR + j];
      if (rb) v += beta * rb[i];
      if (cb) v += beta * cb[j];
      if (bm) v += beta * bm[i * g->sbias0 + j * g->sbias1];
      float *cij = c + i * g->sc0 + j * jb->sc1;
      v = acc ? *cij + v : v;
      *cij = clamp ? clampf(v, g->lo, g->hi) : v;
    }
}

/* A pre-packed B panel of kc rows, on its own 64-byte lines (the
 * microkernels load B aligned); KC * NR is a multiple of 16 already. */
static int64_t panel_floats(int64_t kc, int64_t NR) { return round_up(kc * NR, 16); }

/* A few rows over B packed at load (a classifier, a decode step): the rows
 * kernel over several column panels a call, every FMA useful (the tile ran
 * 4 or 8 rows for 1, compute-bound where B streams). AVX2: 1-2 rows, two
 * panels; AVX-512: 1-4 rows, 4 / rows panels (8 accumulators). 0: no. */
static int64_t rows_panels(const gemm_job *jb) {
  if (!(jb->ar.rows && jb->bpre && jb->a_in_place && jb->direct && jb->mgroups == 1)) return 0;
  if (jb->ar.ukr == k_ukr_avx2_4x24) return jb->mc <= 2 ? 2 : 0;
  if (jb->ar.ukr == k_ukr_avx512_8x32) return jb->mc == 1 ? 4 : jb->mc == 2 ? 2 : jb->mc <= 4 ? 1 : 0;
  return 0;
}

static void tile_rows(const gemm_job *jb, const float *bp, int64_t jp, int64_t np) {
  const k_sgemm_desc *g = jb->g;
  const int64_t NR = jb->ar.NR, j0 = jp * NR, nr = min64(NR, g->N - (jp + np - 1) * NR);
  const float beta = g->beta;
  const k_tile_epi e = {
      g->alpha, beta, jb->first && beta != 0.0f && g->row_bias ? g->row_bias + jb->m0 : NULL,
      jb->first && beta != 0.0f && g->col_bias ? g->col_bias + j0 : NULL, g->accumulate || !jb->first};
  const float lohi[2] = {g->lo, g->hi};
  const float *a = g->a + jb->m0 * g->sa0 + jb->k0, *clamp = g->clamp && jb->last ? lohi : NULL;
  jb->ar.rows(jb->kc, a, g->sa0, jb->mc, np, nr, bp, panel_floats(jb->kc, NR), g->c + jb->m0 * g->sc0 + j0,
              g->sc0, &e, clamp);
}

/* AVX2, A in place, unit column stride and no bias matrix: a row group's
 * tiles of one column panel in one kernel call, partial columns and the
 * clamp in its masked store (MobileNetV2's 16-column 1x1s went through a
 * bounce buffer, its ReLU6 ones through a scalar clamp pass, and its
 * 16-deep ones paid a call and tile setup per 4 x 24 tile). */
static bool avx2_in_place(const gemm_job *jb) {
  return jb->direct && jb->a_in_place && jb->ar.ukr == k_ukr_avx2_4x24;
}

static void tiles_in_place(const gemm_job *jb, const float *bp, int64_t i0, int64_t m, int64_t j0,
                           int64_t nr) {
  const k_sgemm_desc *g = jb->g;
  const float beta = g->beta;
  const k_tile_epi e = {g->alpha, beta, jb->first && beta != 0.0f && g->row_bias ? g->row_bias + i0 : NULL,
                        jb->first && beta != 0.0f && g->col_bias ? g->col_bias + j0 : NULL,
                        g->accumulate || !jb->first};
  const float lohi[2] = {g->lo, g->hi};
  if (m > 0)
    k_ukr_avx2_4x24_a(jb->kc, g->a + i0 * g->sa0 + jb->k0, g->sa0, m, nr, bp, g->c + i0 * g->sc0 + j0, g->sc0,
                      &e, g->clamp && jb->last ? lohi : NULL);
}

static void gemm_chunk(void *ctx, size_t c0, size_t c1) {
  const gemm_job *jb = ctx;
  const k_sgemm_desc *g = jb->g;
  const int64_t MR = jb->ar.MR, NR = jb->ar.NR;
  const bool grouped = jb->group > 1 && !g->pack_b && g->sb1 == 1;
  for (size_t c = c0; c < c1; c++) {
    float *slot = jb->bpack + (jb->per_thread ? pte_threadpool_thread_index() : c) * jb->bstride;
    const int64_t last = g->N - (jb->npanels - 1) * NR;
    const int64_t it0 = k_chunk_first((int64_t)c, jb->chunks, jb->items, jb->mgroups, NR, last),
                  it1 = k_chunk_first((int64_t)c + 1, jb->chunks, jb->items, jb->mgroups, NR, last);
    const int64_t per_call = rows_panels(jb);
    if (per_call) { /* items are column panels (one row panel) */
      for (int64_t jp = it0; jp < it1; jp += per_call)
        tile_rows(jb, jb->bpre + jb->k0 * jb->npanels * NR + jp * panel_floats(jb->kc, NR), jp,
                  min64(per_call, it1 - jp));
      continue;
    }
    int64_t pk0 = -1, pk1 = -1; /* column panels in slot */
    for (int64_t it = it0; it < it1; it++) {
      /* items run column panel by column panel, so a panel is packed once
       * per chunk even when its row groups are split */
      int64_t jp = it / jb->mgroups, mg = it % jb->mgroups;
      int64_t j0 = jp * NR, nr = min64(NR, g->N - j0);
      const float *bpan;
      if (jb->bpre) {
        bpan = jb->bpre + jb->k0 * jb->npanels * NR +
               jp * panel_floats(jb->kc, NR); /* k_sgemm_pack_b's layout */
      } else {
        if (jp < pk0 || jp >= pk1) {
          pk0 = jp;
          pk1 = jp + 1;
          if (grouped) {
            /* this chunk's panels from jp on, up to a group */
            pk1 = min64(jp + jb->group, (it1 - 1) / jb->mgroups + 1);
            pack_b_group(g, jb->k0, jb->kc, j0, pk1 - pk0, min64(NR, g->N - (pk1 - 1) * NR), NR, slot);
          } else if (g->pack_b) {
            g->pack_b(g->pack_user, jb->k0, jb->kc, j0, nr, NR, slot);
          } else {
            pack_b_dense(g, jb->k0, jb->kc, j0, nr, NR, slot);
          }
        }
        bpan = slot + (jp - pk0) * jb->kc * NR;
      }
      int64_t p0 = mg * jb->mpanels / jb->mgroups, p1 = (mg + 1) * jb->mpanels / jb->mgroups;
      if (avx2_in_place(jb)) { /* the row group's tiles in one call */
        tiles_in_place(jb, bpan, jb->m0 + p0 * MR, min64(p1 * MR, jb->mc) - p0 * MR, j0, nr);
        continue;
      }
      /* A pre-packed panel comes from memory, not from the packing that
       * just wrote it: the next one is prefetched a slice per row tile. */
      const char *next =
          jb->bpre && jp + 1 < jb->npanels ? (const char *)(bpan + panel_floats(jb->kc, NR)) : NULL;
      const int64_t lines = next ? panel_floats(jb->kc, NR) * (int64_t)sizeof(float) / 64 : 0;
      const int64_t per = p1 > p0 ? (lines + (p1 - p0) - 1) / (p1 - p0) : 0;
      for (int64_t p = p0; p < p1; p++) {
        int64_t i0 = p * MR;
        const int64_t l0 = (p - p0) * per, npf = min64(per, lines - l0);
        tile(jb, jb->apack + p * MR * jb->kc, bpan, jb->m0 + i0, min64(MR, jb->mc - i0), j0, nr,
             next ? next + l0 * 64 : NULL, npf > 0 ? npf : 0);
      }
    }
  }
}

/* Work items of block m0 (row panels, then items fine enough that the
 * chunks, one per slot, can be cut to equal columns: row panels are split
 * into groups when there are fewer column panels than 8 per slot; a chunk
 * packs each of its panels once, so finer items cost no packing). */
static void plan_block(gemm_job *jb, int64_t m0, int64_t mcb, size_t slots) {
  const k_sgemm_desc *g = jb->g;
  const int64_t MR = jb->ar.MR, NR = jb->ar.NR;
  jb->m0 = m0;
  jb->mc = min64(mcb, g->M - m0);
  jb->npanels = (g->N + NR - 1) / NR;
  jb->mpanels = (jb->mc + MR - 1) / MR;
  int64_t want = (int64_t)slots * 8;
  jb->mgroups = jb->npanels >= want ? 1 : min64(jb->mpanels, (want + jb->npanels - 1) / jb->npanels);
  jb->items = jb->npanels * jb->mgroups;
  jb->chunks = min64((int64_t)slots, jb->items);
}

static void set_k(gemm_job *jb, int64_t k0, int64_t kcb) {
  jb->k0 = k0;
  jb->kc = min64(kcb, jb->g->K - k0);
  jb->first = k0 == 0;
  jb->last = k0 + jb->kc >= jb->g->K;
}

/* A read in place: one pool job for the whole product, chunk c doing its
 * share of every row block and K block (its tiles take their K blocks in
 * order, and no other chunk writes them), instead of a job per block: a
 * K of 768 made three jobs, each ending with a wait for the slower thread. */
typedef struct fused_job {
  gemm_job jb;
  size_t slots, chunks;
  int64_t kcb, mcb;
} fused_job;

static void fused_chunk(void *ctx, size_t c0, size_t c1) {
  const fused_job *f = ctx;
  const k_sgemm_desc *g = f->jb.g;
  for (size_t c = c0; c < c1; c++) {
    gemm_job jb = f->jb;
    for (int64_t m0 = 0; m0 < g->M; m0 += f->mcb) {
      plan_block(&jb, m0, f->mcb, f->slots < f->chunks ? f->chunks / 4 : f->chunks); /* 8 items a thread */
      jb.chunks = (int64_t)f->chunks; /* the same cut for every K block (chunks past the items get none) */
      for (int64_t k0 = 0; k0 < g->K; k0 += f->kcb) {
        set_k(&jb, k0, f->kcb);
        gemm_chunk(&jb, c, c + 1);
      }
    }
  }
}

/* The blocked product on `slots` B panels after one A block in `buf`. */
static void blocked(const k_sgemm_desc *g, const gemm_arch *ar, float *buf, size_t slots, int64_t kcb,
                    int64_t mcb, int64_t group, const float *bpre) {
  gemm_job jb;
  jb.g = g;
  jb.bpre = bpre;
  jb.ar = *ar;
  jb.sc1 = g->sc1 ? g->sc1 : 1;
  jb.direct = jb.sc1 == 1 && !g->bias;
  /* A with contiguous rows is read in place by the AVX-512 and AVX2 kernels
   * (their 8 or 4 rows are as many sequential streams, as cheap as a packed
   * panel), and in place the product is one pool job with no serial step:
   * packing (a transpose of all of A per K slice) ran on the calling thread
   * alone and cost as much as the products when N is small (a
   * convolution's weights on a 7x7 map). Over wide products packing is
   * amortized, and the packed panel was faster (AVX2, Zen 3: 256x1024x1024
   * 79 -> 70 GFLOP/s in place; AVX-512: a little, at tiny K), so only
   * narrow ones read A in place (AVX2, 1 thread: 49 columns 38 -> 52,
   * 197x192x768 65 -> 84), and short ones (64 rows or fewer: MobileNetV2's
   * 7x7 maps, a decode step's few rows) at any width: AVX-512 49x1280x320
   * 145 -> 164, 16x4096x4096 94 -> 147; AVX2 49x320x960 81 -> 87, 137 ->
   * 165 at 2 threads. */
  const int64_t in_place_max_n = ar->ukr == k_ukr_avx512_8x32 ? A_IN_PLACE_MAX_N
                                 : ar->ukr == k_ukr_avx2_4x24 ? AVX2_A_IN_PLACE_MAX_N
                                                              : 0;
  jb.a_in_place = g->sa1 == 1 && in_place_max_n > 0 && (g->N <= in_place_max_n || g->M <= 64);
  jb.per_thread = false;
  const int64_t MR = ar->MR;
  size_t abytes = a_bytes(g->M, g->K, kcb, mcb);
  jb.apack = buf;
  jb.bpack = buf + abytes / sizeof(float);
  jb.group = group;
  jb.bstride = b_bytes(g->K, kcb, group) / sizeof(float);
  if (jb.a_in_place && slots > 1 && (g->K > kcb || g->M > mcb || bpre)) {
    /* Chunks taken by whichever thread is free, a few per thread, each
     * packing into its thread's slot (when every thread has one): a worker
     * that starts late (a core another process holds) then costs a chunk,
     * where with one chunk per slot the caller did the whole product. B
     * packed at load takes this path at any size (one block too: GPT-2's
     * 64-row products at K = 256 were one chunk per thread). */
    const size_t threads = k_threads();
    fused_job f = {jb, slots, slots, kcb, mcb};
    if (slots >= threads) f.jb.per_thread = true, f.chunks = threads * 4;
    pte_threadpool_parallel_for(f.chunks, 1, fused_chunk, &f);
    return;
  }
  for (int64_t k0 = 0; k0 < g->K; k0 += kcb) {
    set_k(&jb, k0, kcb);
    for (int64_t m0 = 0; m0 < g->M; m0 += mcb) {
      plan_block(&jb, m0, mcb, slots);
      if (!jb.a_in_place) pack_a(g, m0, jb.mc, k0, jb.kc, MR, buf);
      if (jb.chunks > 1) pte_threadpool_parallel_for((size_t)jb.chunks, 1, gemm_chunk, &jb);
      else gemm_chunk(&jb, 0, 1);
    }
  }
}

/* One or two rows (a classifier on a single sample, a GEMV): packing B
 * would cost more than the products, so each C row is built from
 * contiguous rows of B with vectorized axpys, columns split over the pool. */
typedef struct rows_job {
  const k_sgemm_desc *g;
  k_axpy_fn axpy;
  int64_t block;
} rows_job;

static void small_m_cols(void *ctx, size_t b0, size_t b1) {
  const rows_job *rj = ctx;
  const k_sgemm_desc *g = rj->g;
  int64_t j0 = (int64_t)b0 * rj->block, j1 = min64((int64_t)b1 * rj->block, g->N), n = j1 - j0;
  for (int64_t i = 0; i < g->M; i++) {
    float *c = g->c + i * g->sc0 + j0;
    for (int64_t j = 0; j < n; j++) c[j] = 0.0f;
    for (int64_t k = 0; k < g->K; k++) rj->axpy(c, g->b + k * g->sb0 + j0, g->a[i * g->sa0 + k * g->sa1], n);
    for (int64_t j = 0; j < n; j++) put(g, &c[j], g->alpha * c[j], i, j0 + j, false);
  }
}

/* B stored transposed and A's rows contiguous (linear's weight; a decode
 * step's single row): each output is a dot product of two contiguous rows,
 * so nothing is packed and B is read once per row block; columns are split
 * over the pool. */
typedef struct dots_job {
  const k_sgemm_desc *g;
  k_dot_tile_fn tile;
  int mr;
} dots_job;

static void dots_cols(void *ctx, size_t b0, size_t b1) {
  const dots_job *dj = ctx;
  const k_sgemm_desc *g = dj->g;
  const int64_t jb = (int64_t)b0 * 4, je = min64((int64_t)b1 * 4, g->N), sc1 = g->sc1 ? g->sc1 : 1;
  for (int64_t i0 = 0; i0 < g->M; i0 += dj->mr) {
    const int64_t rows = min64(dj->mr, g->M - i0);
    const float *a[4];
    for (int64_t i = 0; i < 4; i++) a[i] = g->a + (i0 + min64(i, rows - 1)) * g->sa0;
    for (int64_t j0 = jb; j0 < je; j0 += 4) {
      const int64_t cols = min64(4, g->N - j0);
      const float *b[4];
      for (int64_t j = 0; j < 4; j++) b[j] = g->b + (j0 + min64(j, cols - 1)) * g->sb1;
      float t[4][4];
      dj->tile(g->K, a, b, rows == 1 ? 1 : dj->mr, t);
      for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
          put(g, g->c + (i0 + i) * g->sc0 + (j0 + j) * sc1, g->alpha * t[i][j], i0 + i, j0 + j,
              g->accumulate);
    }
  }
}

/* No caller scratch: each thread runs its share serially on packing
 * buffers of its own stack. Rows are split (columns when there are few
 * rows and B is a dense matrix). */
typedef struct stack_job {
  const k_sgemm_desc *g;
  gemm_arch ar;
  int64_t parts;
  bool by_cols;
} stack_job;

static void stack_serial(const k_sgemm_desc *g, const gemm_arch *ar) {
  _Alignas(64) float buf[(MC_STACK * KC_STACK + KC_STACK * NR_MAX)];
  blocked(g, ar, buf, 1, KC_STACK, MC_STACK, 1, NULL);
}

static void stack_parts(void *ctx, size_t p0, size_t p1) {
  const stack_job *sj = ctx;
  const k_sgemm_desc *g = sj->g;
  int64_t total = sj->by_cols ? g->N : g->M, unit = sj->by_cols ? sj->ar.NR : sj->ar.MR;
  int64_t units = (total + unit - 1) / unit;
  int64_t u0 = (int64_t)p0 * units / sj->parts, u1 = (int64_t)p1 * units / sj->parts;
  int64_t s = u0 * unit, e = min64(u1 * unit, total);
  if (s >= e) return;
  k_sgemm_desc sub = *g;
  int64_t sc1 = g->sc1 ? g->sc1 : 1;
  if (sj->by_cols) {
    sub.N = e - s;
    sub.b += s * g->sb1;
    sub.c += s * sc1;
    if (sub.col_bias) sub.col_bias += s;
    if (sub.bias) sub.bias += s * g->sbias1;
  } else {
    sub.M = e - s;
    sub.a += s * g->sa0;
    sub.c += s * g->sc0;
    if (sub.row_bias) sub.row_bias += s;
    if (sub.bias) sub.bias += s * g->sbias0;
  }
  stack_serial(&sub, &sj->ar);
}

double k_sgemm_split_cost(int64_t M, int64_t N, int64_t K) {
  /* one of few rows lasts as long as B takes to stream in (about 2
   * multiply-adds' time a byte), so a decode step's product over a big
   * filter is split too (each core brings its own share of the bandwidth) */
  const double flops = (double)M * (double)N * (double)K, b_stream = (double)N * (double)K * sizeof(float);
  return flops > 2.0 * b_stream ? flops : 2.0 * b_stream;
}

void k_sgemm(const k_sgemm_desc *g) {
  if (g->M <= 0 || g->N <= 0) return;
  int64_t sc1 = g->sc1 ? g->sc1 : 1;
  gemm_arch ar = arch();
  double flops = (double)g->M * (double)g->N * (double)g->K;
  /* B packed at load: the blocked product reads its panels whatever the
   * shape, so the dense B need not stay resident (nor be read at all). */
  const bool pre = g->b_packed && !g->pack_b && g->K > 0 && g->scratch &&
                   g->scratch_bytes >= k_sgemm_scratch_min(g->M, g->N, g->K);
  /* B only packed (Winograd's transformed filters) but no scratch for the
   * blocked product: nothing is computed (the callers always give it) */
  if (!g->b && g->b_packed && !g->pack_b && !pre) return;
  /* Small products (a tiny layer, one head of attention): packing A and B
   * and the edge tiles cost more than the products, so they run straight
   * from the operands. */
  if (!pre && g->K > 0 && g->sb1 == 1 && sc1 == 1 && !g->pack_b) {
    k_isa isa = k_isa_get();
    if (isa == K_ISA_AVX512 && flops <= DIRECT_MAX_FLOPS_AVX512) {
      k_sgemm_direct_avx512(g);
      return;
    }
    if (isa == K_ISA_AVX2 && flops <= DIRECT_MAX_FLOPS_AVX2) {
      k_sgemm_direct_avx2(g);
      return;
    }
    if (isa == K_ISA_NEON && flops <= DIRECT_MAX_FLOPS_NEON) {
      k_sgemm_direct_neon(g);
      return;
    }
  }
  if (!pre && g->K > 0 && g->sb0 == 1 && g->sa1 == 1 && !g->pack_b && g->M <= DOTS_MAX_M) {
    k_isa isa = k_isa_get();
    dots_job dj = {g, isa == K_ISA_AVX512 ? k_dot_tile_avx512 : k_dot_tile_avx2, isa == K_ISA_AVX512 ? 4 : 2};
    if (isa == K_ISA_NEON) dj.tile = k_dot_tile_neon, dj.mr = 4;
    if (isa == K_ISA_AVX2 || isa == K_ISA_AVX512 || isa == K_ISA_NEON) {
      size_t blocks = (size_t)((g->N + 3) / 4);
      if (g->parallel) k_parallel_for(blocks, flops, dots_cols, &dj);
      else dots_cols(&dj, 0, blocks);
      return;
    }
  }
  if (!pre && g->M <= 2 && g->K > 0 && g->sb1 == 1 && sc1 == 1 && !g->pack_b && !g->accumulate) {
    rows_job rj = {g, ar.axpy, 256};
    size_t blocks = (size_t)((g->N + rj.block - 1) / rj.block);
    if (g->parallel) k_parallel_for(blocks, flops, small_m_cols, &rj);
    else small_m_cols(&rj, 0, blocks);
    return;
  }
  if (g->K <= 0) {
    /* no products: C = beta * bias (or unchanged when accumulating) */
    for (int64_t i = 0; i < g->M; i++)
      for (int64_t j = 0; j < g->N; j++) put(g, g->c + i * g->sc0 + j * sc1, 0.0f, i, j, g->accumulate);
    return;
  }
  /* small products stay on this thread: waking the pool costs more (and
   * asking its size takes its lock) */
  size_t slots = g->parallel && k_sgemm_split_cost(g->M, g->N, g->K) >= K_PAR_MIN_FLOPS ? k_slots() : 1;
  if (!g->scratch || g->scratch_bytes < k_sgemm_scratch_min(g->M, g->N, g->K)) {
    stack_job sj = {g, ar, (int64_t)slots, g->M < 2 * ar.MR * (int64_t)slots && !g->pack_b};
    if (slots > 1) pte_threadpool_parallel_for(slots, 1, stack_parts, &sj);
    else stack_serial(g, &ar);
    return;
  }
  int64_t group = b_group(g->N);
  size_t abytes = a_bytes(g->M, g->K, KC, MC), bbytes = b_bytes(g->K, KC, group);
  if ((g->scratch_bytes - abytes) / bbytes < slots) slots = (g->scratch_bytes - abytes) / bbytes;
  blocked(g, &ar, g->scratch, slots < 1 ? 1 : slots, KC, MC, group, g->pack_b ? NULL : g->b_packed);
}

/* Layout: K blocks of KC rows (as the scratch product blocks K), in each
 * the column panels of NR, each kc x NR floats zero-padded past N, 64-byte
 * aligned (panel_floats). */
size_t k_sgemm_packed_b_floats(int64_t N, int64_t K) {
  if (N <= 0 || K <= 0) return 0;
  const int64_t NR = arch().NR, npanels = (N + NR - 1) / NR, last = K - (K - 1) / KC * KC;
  return (size_t)(((K - last) * NR + panel_floats(last, NR)) * npanels);
}

void k_sgemm_pack_b(const float *b, int64_t sb0, int64_t sb1, int64_t N, int64_t K, float *dst) {
  const int64_t NR = arch().NR, npanels = (N + NR - 1) / NR;
  k_sgemm_desc g;
  memset(&g, 0, sizeof g);
  g.b = b, g.sb0 = sb0, g.sb1 = sb1;
  for (int64_t k0 = 0; k0 < K; k0 += KC) {
    const int64_t kc = min64(KC, K - k0), pf = panel_floats(kc, NR);
    float *blk = dst + k0 * npanels * NR;
    if (sb1 == 1) {
      /* row by row across all panels: a panel alone would read NR floats
       * of each row, rows a whole weight row apart (the load-time cost) */
      for (int64_t k = 0; k < kc; k++) {
        const float *row = b + (k0 + k) * sb0;
        for (int64_t jp = 0; jp < npanels; jp++) {
          const int64_t nr = min64(NR, N - jp * NR);
          float *d = blk + jp * pf + k * NR;
          memcpy(d, row + jp * NR, (size_t)nr * sizeof(float));
          for (int64_t j = nr; j < NR; j++) d[j] = 0.0f;
        }
      }
      continue;
    }
    for (int64_t jp = 0; jp < npanels; jp++)
      pack_b_dense(&g, k0, kc, jp * NR, min64(NR, N - jp * NR), NR, blk + jp * pf);
  }
}

void k_sgemm_pack_b_fn(k_pack_b_fn fn, const void *user, int64_t N, int64_t K, float *dst) {
  const int64_t NR = arch().NR, npanels = (N + NR - 1) / NR;
  for (int64_t k0 = 0; k0 < K; k0 += KC) {
    const int64_t kc = min64(KC, K - k0);
    for (int64_t jp = 0; jp < npanels; jp++)
      fn(user, k0, kc, jp * NR, min64(NR, N - jp * NR), NR,
         dst + k0 * npanels * NR + jp * panel_floats(kc, NR));
  }
}

/* ---- batches ---- */

typedef struct batch_job {
  const k_sgemm_desc *g;
  int32_t dims;
  const int64_t *sizes, *sa, *sb, *sc;
  int64_t parts; /* row bands per product */
  /* with caller scratch: tasks cut into `chunks`, chunk c on slice c of
   * `slice` bytes */
  size_t tasks, chunks, slice;
} batch_job;

/* Band p of `parts` of M rows, in whole 8-row tiles. */
static int64_t band_row(int64_t M, int64_t p, int64_t parts) {
  int64_t r = p * ((M + 7) / 8) / parts * 8;
  return r < M ? r : M;
}

static void batch_range(void *ctx, size_t t0, size_t t1) {
  const batch_job *bj = ctx;
  for (size_t t = t0; t < t1; t++) {
    k_sgemm_desc one = *bj->g;
    const int64_t b = (int64_t)t / bj->parts, p = (int64_t)t % bj->parts;
    const int64_t r0 = band_row(one.M, p, bj->parts), r1 = band_row(one.M, p + 1, bj->parts);
    if (r0 >= r1) continue;
    one.M = r1 - r0;
    one.a += r0 * one.sa0;
    one.c += r0 * one.sc0;
    if (one.row_bias) one.row_bias += r0;
    if (one.bias) one.bias += r0 * one.sbias0;
    int64_t rem = b;
    for (int32_t d = bj->dims - 1; d >= 0; d--) {
      int64_t idx = rem % bj->sizes[d];
      rem /= bj->sizes[d];
      one.a += idx * bj->sa[d];
      one.b += idx * bj->sb[d];
      one.c += idx * bj->sc[d];
    }
    k_sgemm(&one);
  }
}

static void batch_chunk(void *ctx, size_t c0, size_t c1) {
  const batch_job *bj = ctx;
  for (size_t c = c0; c < c1; c++) {
    k_sgemm_desc each = *bj->g;
    each.scratch = (float *)((char *)each.scratch + c * bj->slice);
    each.scratch_bytes = bj->slice;
    batch_job sub = *bj;
    sub.g = &each;
    batch_range(&sub, c * bj->tasks / bj->chunks, (c + 1) * bj->tasks / bj->chunks);
  }
}

void k_sgemm_batched(const k_sgemm_desc *g, int32_t dims, const int64_t *sizes, const int64_t *sa,
                     const int64_t *sb, const int64_t *sc) {
  int64_t n = 1;
  for (int32_t d = 0; d < dims; d++) n *= sizes[d];
  if (n <= 0) return;
  k_sgemm_desc each = *g;
  batch_job bj = {&each, dims, sizes, sa, sb, sc, 1, 0, 0, 0};
  double flops = (double)n * (double)g->M * (double)g->N * (double)g->K;
  size_t threads = g->parallel && n > 1 && flops >= K_PAR_MIN_FLOPS ? k_threads() : 1;
  if (threads > 1 && (size_t)n >= threads) {
    /* products spread over the pool, each serial; when they do not divide
     * evenly (3 heads on 2 threads), cut into row bands so they do */
    if ((size_t)n % threads != 0 && (size_t)n < 4 * threads) {
      int64_t most = (g->M + 15) / 16;
      bj.parts = (int64_t)threads < most ? (int64_t)threads : most;
    }
    each.parallel = false;
    bj.tasks = (size_t)(n * bj.parts);
    if (g->scratch) {
      /* one chunk per slot, each product packing into its slot's slice
       * (on the stack its blocks are a quarter and a half of these, and
       * B is packed again for every 32 rows: twice the time of ViT's
       * attention products) */
      bj.chunks = bj.tasks < k_slots() ? bj.tasks : k_slots();
      bj.slice = g->scratch_bytes / bj.chunks & ~(size_t)63;
      k_parallel_chunks(bj.chunks, batch_chunk, &bj);
      return;
    }
    k_parallel_for(bj.tasks, flops, batch_range, &bj);
  } else {
    batch_range(&bj, 0, (size_t)n);
  }
}

/* The portable microkernel: plain loops the compiler vectorizes with
 * whatever the baseline instruction set offers (SSE2 on x86-64). */
void k_ukr_generic_4x16(int64_t kc, const float *a, const float *b, float *c, int64_t ldc,
                        const k_tile_epi *e) {
  float acc[4][16];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 16; j++) acc[i][j] = 0.0f;
  for (int64_t k = 0; k < kc; k++) {
    const float *bk = b + k * 16;
    for (int i = 0; i < 4; i++) {
      float av = a[k * 4 + i];
      for (int j = 0; j < 16; j++) acc[i][j] += av * bk[j];
    }
  }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 16; j++) {
      float v = e->alpha * acc[i][j];
      if (e->rb) v += e->beta * e->rb[i];
      if (e->cb) v += e->beta * e->cb[j];
      c[i * ldc + j] = e->accumulate ? c[i * ldc + j] + v : v;
    }
}

void k_axpy_generic(float *y, const float *x, float a, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] += a * x[i];
}
