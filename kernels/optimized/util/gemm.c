/* The matrix product driver (see gemm.h): blocking, packing, splitting over
 * the pool, edge tiles. The microkernels live in gemm_<isa>.c. */
#include "gemm.h"

#include "kern.h"

typedef struct gemm_arch {
  int64_t MR, NR;
  o_ukr_fn ukr;
} gemm_arch;

static gemm_arch arch(void) {
  switch (o_isa_get()) {
    case O_ISA_AVX512: return (gemm_arch){8, 32, o_ukr_avx512_8x32};
    case O_ISA_AVX2: return (gemm_arch){4, 24, o_ukr_avx2_4x24};
    default: return (gemm_arch){4, 16, o_ukr_generic_4x16};
  }
}

/* KC: a B panel (KC x NR floats) stays in L1 while every row panel of the
 * block streams past it; MC bounds the packed A block (MC x KC) to L2. */
#define KC 256
#define MC 256
/* Largest NR / MR of any microkernel, for sizing scratch independently of
 * the instruction set picked. */
#define NR_MAX 32
#define MR_MAX 8

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t round_up(int64_t a, int64_t m) { return (a + m - 1) / m * m; }

static size_t scratch_for(int64_t M, int64_t N, int64_t K, size_t slots) {
  if (M <= 0 || N <= 0 || K <= 0) return 0;
  int64_t kc = min64(K, KC), mc = round_up(min64(M, MC), MR_MAX);
  size_t a = ((size_t)(mc * kc) * sizeof(float) + 63) & ~(size_t)63;
  size_t b = (size_t)(kc * NR_MAX) * sizeof(float);
  /* one B panel per slot, each on its own cache lines */
  return a + slots * ((b + 63) & ~(size_t)63);
}

size_t o_gemm_scratch(int64_t M, int64_t N, int64_t K) { return scratch_for(M, N, K, o_slots()); }
size_t o_gemm_scratch_min(int64_t M, int64_t N, int64_t K) { return scratch_for(M, N, K, 1); }

static void pack_a(const o_gemm *g, int64_t m0, int64_t mc, int64_t k0, int64_t kc, int64_t MR, float *dst) {
  for (int64_t p = 0; p < mc; p += MR) {
    int64_t mr = min64(MR, mc - p);
    const float *src = g->a + (m0 + p) * g->sa0 + k0 * g->sa1;
    if (g->sa1 == 1) {
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

static void pack_b_dense(const o_gemm *g, int64_t k0, int64_t kc, int64_t j0, int64_t nr, int64_t NR, float *dst) {
  const float *src = g->b + k0 * g->sb0 + j0 * g->sb1;
  if (g->sb1 == 1) {
    for (int64_t k = 0; k < kc; k++) {
      memcpy(dst + k * NR, src + k * g->sb0, (size_t)nr * sizeof(float));
      for (int64_t j = nr; j < NR; j++) dst[k * NR + j] = 0.0f;
    }
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

typedef struct gemm_job {
  const o_gemm *g;
  gemm_arch ar;
  int64_t k0, kc, m0, mc;
  int64_t npanels, mgroups, mpanels, items, chunks;
  const float *apack;
  float *bpack; /* slot 0; slot i at bpack + i * bstride */
  size_t bstride;
  bool first; /* first K slice: write (bias), later ones accumulate */
} gemm_job;

static void tile(const gemm_job *jb, const float *ap, const float *bp, int64_t i0, int64_t mr, int64_t j0, int64_t nr) {
  const o_gemm *g = jb->g;
  const int64_t MR = jb->ar.MR, NR = jb->ar.NR;
  bool acc = g->accumulate || !jb->first;
  float beta = g->beta;
  const float *rb = jb->first && beta != 0.0f && g->row_bias ? g->row_bias + i0 : NULL;
  const float *cb = jb->first && beta != 0.0f && g->col_bias ? g->col_bias + j0 : NULL;
  float *c = g->c + i0 * g->ldc + j0;
  if (mr == MR && nr == NR) {
    o_tile_epi e = {g->alpha, beta, rb, cb, acc};
    jb->ar.ukr(jb->kc, ap, bp, c, g->ldc, &e);
    return;
  }
  float tmp[MR_MAX * NR_MAX] __attribute__((aligned(64)));
  o_tile_epi e = {1.0f, 0.0f, NULL, NULL, false};
  jb->ar.ukr(jb->kc, ap, bp, tmp, NR, &e);
  for (int64_t i = 0; i < mr; i++)
    for (int64_t j = 0; j < nr; j++) {
      float v = g->alpha * tmp[i * NR + j];
      if (rb) v += beta * rb[i];
      if (cb) v += beta * cb[j];
      c[i * g->ldc + j] = acc ? c[i * g->ldc + j] + v : v;
    }
}

static void gemm_chunk(void *ctx, size_t c0, size_t c1) {
  const gemm_job *jb = ctx;
  const o_gemm *g = jb->g;
  const int64_t MR = jb->ar.MR, NR = jb->ar.NR;
  for (size_t c = c0; c < c1; c++) {
    float *bp = jb->bpack + c * jb->bstride;
    int64_t it0 = (int64_t)c * jb->items / jb->chunks, it1 = ((int64_t)c + 1) * jb->items / jb->chunks;
    int64_t packed = -1;
    for (int64_t it = it0; it < it1; it++) {
      /* items run column panel by column panel, so a panel is packed once
       * per chunk even when its row groups are split */
      int64_t jp = it / jb->mgroups, mg = it % jb->mgroups;
      int64_t j0 = jp * NR, nr = min64(NR, g->N - j0);
      if (packed != jp) {
        if (g->pack_b)
          g->pack_b(g->pack_user, jb->k0, jb->kc, j0, nr, NR, bp);
        else
          pack_b_dense(g, jb->k0, jb->kc, j0, nr, NR, bp);
        packed = jp;
      }
      int64_t p0 = mg * jb->mpanels / jb->mgroups, p1 = (mg + 1) * jb->mpanels / jb->mgroups;
      for (int64_t p = p0; p < p1; p++) {
        int64_t i0 = p * MR;
        tile(jb, jb->apack + p * MR * jb->kc, bp, jb->m0 + i0, min64(MR, jb->mc - i0), j0, nr);
      }
    }
  }
}

/* One or two rows (a classifier on a single sample, a GEMV): packing B
 * would cost more than the products, so each C row is built from
 * contiguous rows of B with vectorized axpys, columns split over the pool. */
typedef struct rows_job {
  const o_gemm *g;
  int64_t block;
} rows_job;

static void small_m_cols(void *ctx, size_t b0, size_t b1) {
  const rows_job *rj = ctx;
  const o_gemm *g = rj->g;
  const o_kern_table *kt = o_kern();
  int64_t j0 = (int64_t)b0 * rj->block, j1 = min64((int64_t)b1 * rj->block, g->N), n = j1 - j0;
  for (int64_t i = 0; i < g->M; i++) {
    float *c = g->c + i * g->ldc + j0;
    for (int64_t j = 0; j < n; j++) c[j] = 0.0f;
    for (int64_t k = 0; k < g->K; k++) kt->axpy(c, g->b + k * g->sb0 + j0, g->a[i * g->sa0 + k * g->sa1], n);
    for (int64_t j = 0; j < n; j++) {
      float v = g->alpha * c[j];
      if (g->beta != 0.0f && g->row_bias) v += g->beta * g->row_bias[i];
      if (g->beta != 0.0f && g->col_bias) v += g->beta * g->col_bias[j0 + j];
      c[j] = v;
    }
  }
}

void o_gemm_run(const o_gemm *g, float *scratch, size_t bytes, bool parallel) {
  if (g->M <= 0 || g->N <= 0) return;
  if (g->M <= 2 && g->K > 0 && g->sb1 == 1 && !g->pack_b && !g->accumulate) {
    rows_job rj = {g, 256};
    size_t blocks = (size_t)((g->N + rj.block - 1) / rj.block);
    if (parallel)
      o_parallel(blocks, (double)g->M * (double)g->N * (double)g->K, small_m_cols, &rj);
    else
      small_m_cols(&rj, 0, blocks);
    return;
  }
  gemm_job jb;
  jb.g = g;
  jb.ar = arch();
  const int64_t MR = jb.ar.MR, NR = jb.ar.NR;
  if (g->K <= 0) {
    /* no products: C = beta * bias (or unchanged when accumulating) */
    for (int64_t i = 0; i < g->M; i++)
      for (int64_t j = 0; j < g->N; j++) {
        float v = 0.0f;
        if (g->beta != 0.0f && g->row_bias) v += g->beta * g->row_bias[i];
        if (g->beta != 0.0f && g->col_bias) v += g->beta * g->col_bias[j];
        float *c = g->c + i * g->ldc + j;
        *c = g->accumulate ? *c + v : v;
      }
    return;
  }
  int64_t kcmax = min64(g->K, KC), mcmax = round_up(min64(g->M, MC), MR_MAX);
  float *apack = scratch;
  size_t bbytes = ((size_t)(kcmax * NR_MAX) * sizeof(float) + 63) & ~(size_t)63;
  size_t abytes = ((size_t)(mcmax * kcmax) * sizeof(float) + 63) & ~(size_t)63;
  jb.bpack = apack + abytes / sizeof(float);
  jb.bstride = bbytes / sizeof(float);
  jb.apack = apack;
  double flops = (double)g->M * (double)g->N * (double)g->K;
  /* small products stay on this thread: waking the pool costs more (and
   * asking its size takes its lock) */
  size_t slots = parallel && flops >= O_PAR_MIN_FLOPS ? o_slots() : 1;
  if (bytes > abytes && (bytes - abytes) / bbytes < slots) slots = (bytes - abytes) / bbytes;
  if (slots < 1) slots = 1;
  for (int64_t k0 = 0; k0 < g->K; k0 += KC) {
    jb.k0 = k0;
    jb.kc = min64(KC, g->K - k0);
    jb.first = k0 == 0;
    for (int64_t m0 = 0; m0 < g->M; m0 += MC) {
      jb.m0 = m0;
      jb.mc = min64(MC, g->M - m0);
      pack_a(g, m0, jb.mc, k0, jb.kc, MR, apack);
      jb.npanels = (g->N + NR - 1) / NR;
      jb.mpanels = (jb.mc + MR - 1) / MR;
      /* Enough work items for every slot: split row panels into groups when
       * there are fewer column panels than twice the slots. */
      int64_t want = (int64_t)slots * 2;
      jb.mgroups = jb.npanels >= want ? 1 : min64(jb.mpanels, (want + jb.npanels - 1) / jb.npanels);
      jb.items = jb.npanels * jb.mgroups;
      jb.chunks = min64((int64_t)slots, jb.items);
      if (jb.chunks > 1)
        pte_threadpool_parallel_for((size_t)jb.chunks, 1, gemm_chunk, &jb);
      else
        gemm_chunk(&jb, 0, 1);
    }
  }
}

/* The portable microkernel: plain loops the compiler vectorizes with
 * whatever the baseline instruction set offers (SSE2 on x86-64). */
void o_ukr_generic_4x16(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, const o_tile_epi *e) {
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

/* ---- indirect product (stride-1 convolution) ---- */

typedef struct igemm_job {
  const o_igemm *g;
  int64_t MR, NR;
  o_ukr_ind_fn ukr;
  int64_t npanels, mpanels, mgroups, items, chunks;
  int64_t row_tiles; /* > 0: tiles follow output rows (OW a multiple of NR), this many a row */
} igemm_job;

/* Write an MR x NR result tile to the output, dropping pad columns. The
 * tile's columns fall into runs on output rows; the runs are the same for
 * every row of the tile, so they are worked out once. */
static void igemm_store(const o_igemm *g, const float *tmp, int64_t NR, int64_t i0, int64_t mr, int64_t j0,
                        int64_t nr) {
  int64_t src[NR_MAX + 1], dst[NR_MAX + 1], len[NR_MAX + 1];
  int nseg = 0;
  int64_t j = 0, q = j0, r = q / g->Wp, col = q % g->Wp;
  if (g->Wp == g->OW) { /* no pad columns: one run */
    src[0] = 0, dst[0] = j0, len[0] = nr, nseg = 1;
    j = nr;
  }
  while (j < nr) {
    int64_t run = g->Wp - col < nr - j ? g->Wp - col : nr - j;
    if (col < g->OW) {
      src[nseg] = j;
      dst[nseg] = r * g->OW + col;
      len[nseg++] = g->OW - col < run ? g->OW - col : run;
    }
    j += run;
    r++;
    col = 0;
  }
  const o_kern_table *kt = o_kern();
  for (int64_t i = 0; i < mr; i++) {
    const float *t = tmp + i * NR;
    float *crow = g->c + (i0 + i) * g->ldc;
    const float bias = g->row_bias ? g->row_bias[i0 + i] : 0.0f;
    for (int s = 0; s < nseg; s++) kt->binary(O_ADD, t + src[s], 1, &bias, 0, crow + dst[s], len[s], 1.0f);
  }
}

size_t o_igemm_panel_bytes(int64_t K) { return ((size_t)(K * NR_MAX) * sizeof(float) + 63) & ~(size_t)63; }

static void igemm_chunk(void *ctx, size_t c0, size_t c1) {
  const igemm_job *jb = ctx;
  const o_igemm *g = jb->g;
  const int64_t MR = jb->MR, NR = jb->NR;
  float tmp[MR_MAX * NR_MAX] __attribute__((aligned(64)));
  for (size_t c = c0; c < c1; c++) {
    float *panel = g->pack_b ? g->panels + c * (o_igemm_panel_bytes(g->K) / sizeof(float)) : NULL;
    int64_t packed = -1;
    int64_t it0 = (int64_t)c * jb->items / jb->chunks, it1 = ((int64_t)c + 1) * jb->items / jb->chunks;
    for (int64_t it = it0; it < it1; it++) {
      int64_t jp = it / jb->mgroups, mg = it % jb->mgroups;
      int64_t j0 = jp * NR, nr = min64(NR, g->Q - j0);
      const float *b = panel ? NULL : g->b + j0; /* no B at all when panels are packed */
      const int64_t *boff = g->boff;
      if (panel) {
        if (packed != jp) g->pack_b(g->pack_user, 0, g->K, j0, nr, NR, panel);
        packed = jp;
        b = panel;
        boff = g->lin;
      }
      int64_t p0 = mg * jb->mpanels / jb->mgroups, p1 = (mg + 1) * jb->mpanels / jb->mgroups;
      if (jb->row_tiles) {
        /* tile jp is columns ow0 .. ow0+NR of output row oh: read the
         * input there, store straight into the output */
        int64_t oh = jp / jb->row_tiles, ow0 = jp % jb->row_tiles * NR;
        for (int64_t p = p0; p < p1; p++) {
          int64_t mr = min64(MR, g->M - p * MR);
          jb->ukr(g->K, g->a + p * MR * g->K, g->K, mr, g->b + oh * g->Wp + ow0, g->boff,
                  g->c + p * MR * g->ldc + oh * g->OW + ow0, g->ldc, g->row_bias ? g->row_bias + p * MR : NULL);
        }
        continue;
      }
      for (int64_t p = p0; p < p1; p++) {
        int64_t mr = min64(MR, g->M - p * MR);
        jb->ukr(g->K, g->a + p * MR * g->K, g->K, mr, b, boff, tmp, NR, NULL);
        igemm_store(g, tmp, NR, p * MR, mr, j0, nr);
      }
    }
  }
}

void o_igemm_run(const o_igemm *g, size_t slots_avail) {
  if (g->M <= 0 || g->Q <= 0) return;
  igemm_job jb;
  jb.g = g;
  switch (o_isa_get()) {
    case O_ISA_AVX512: jb.MR = 8, jb.NR = 32, jb.ukr = o_ukr_ind_avx512_8x32; break;
    case O_ISA_AVX2: jb.MR = 4, jb.NR = 24, jb.ukr = o_ukr_ind_avx2_4x24; break;
    default: jb.MR = 4, jb.NR = 16, jb.ukr = o_ukr_ind_generic_4x16; break;
  }
  /* Output rows a whole number of tiles wide (32-wide maps): tiles follow
   * the rows, so no pad column is computed and results go straight out. */
  jb.row_tiles = !g->pack_b && g->OW % jb.NR == 0 ? g->OW / jb.NR : 0;
  jb.npanels = jb.row_tiles ? ((g->Q - g->OW) / g->Wp + 1) * jb.row_tiles : (g->Q + jb.NR - 1) / jb.NR;
  jb.mpanels = (g->M + jb.MR - 1) / jb.MR;
  if (g->pack_b)
    for (int64_t k = 0; k < g->K; k++) g->lin[k] = k * jb.NR;
  double flops = (double)g->M * (double)g->Q * (double)g->K;
  int64_t slots = flops >= O_PAR_MIN_FLOPS ? (int64_t)o_threads() : 1;
  int64_t want = slots * 4;
  jb.mgroups = jb.npanels >= want ? 1 : min64(jb.mpanels, (want + jb.npanels - 1) / jb.npanels);
  jb.items = jb.npanels * jb.mgroups;
  /* a few chunks per thread: tiles are uneven at the edges (but one per
   * packing slot when panels are packed) */
  int64_t chunks = slots > 1 ? slots * 4 : 1;
  if (g->pack_b) chunks = min64(slots, (int64_t)(slots_avail ? slots_avail : 1));
  jb.chunks = min64(chunks, jb.items);
  if (jb.chunks > 1)
    pte_threadpool_parallel_for((size_t)jb.chunks, 1, igemm_chunk, &jb);
  else
    igemm_chunk(&jb, 0, 1);
}

void o_ukr_ind_generic_4x16(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b, const int64_t *boff,
                            float *c, int64_t ldc, const float *bias) {
  float acc[4][16];
  const float *ar[4];
  for (int i = 0; i < 4; i++) ar[i] = a + (i < mr ? i : mr - 1) * lda;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 16; j++) acc[i][j] = 0.0f;
  for (int64_t k = 0; k < kc; k++) {
    const float *bk = b + boff[k];
    for (int i = 0; i < 4; i++) {
      float av = ar[i][k];
      for (int j = 0; j < 16; j++) acc[i][j] += av * bk[j];
    }
  }
  for (int64_t i = 0; i < mr; i++)
    for (int j = 0; j < 16; j++) c[i * ldc + j] = acc[i][j] + (bias ? bias[i] : 0.0f);
}
