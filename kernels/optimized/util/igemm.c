/* The indirect product for stride-1 convolution (see igemm.h). */
#include "igemm.h"

#include "kern.h"

#define NR_MAX K_SGEMM_NR_MAX
#define MR_MAX K_SGEMM_MR_MAX

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

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

size_t o_igemm_panel_bytes(int64_t K) { return k_align64((size_t)(K * NR_MAX) * sizeof(float)); }

static void igemm_chunk(void *ctx, size_t c0, size_t c1) {
  const igemm_job *jb = ctx;
  const o_igemm *g = jb->g;
  const int64_t MR = jb->MR, NR = jb->NR;
  float tmp[MR_MAX * NR_MAX] __attribute__((aligned(64)));
  for (size_t c = c0; c < c1; c++) {
    float *panel = g->pack_b ? g->panels + c * (o_igemm_panel_bytes(g->K) / sizeof(float)) : NULL;
    int64_t packed = -1;
    const int64_t last = jb->row_tiles ? NR : g->Q - (jb->npanels - 1) * NR;
    const int64_t it0 = k_chunk_first((int64_t)c, jb->chunks, jb->items, jb->mgroups, NR, last),
                  it1 = k_chunk_first((int64_t)c + 1, jb->chunks, jb->items, jb->mgroups, NR, last);
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
                  g->c + p * MR * g->ldc + oh * g->OW + ow0, g->ldc,
                  g->row_bias ? g->row_bias + p * MR : NULL);
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
  switch (k_isa_get()) {
    case K_ISA_AVX512: jb.MR = 8, jb.NR = 32, jb.ukr = o_ukr_ind_avx512_8x32; break;
    case K_ISA_AVX2: jb.MR = 4, jb.NR = 24, jb.ukr = o_ukr_ind_avx2_4x24; break;
    case K_ISA_NEON: jb.MR = 8, jb.NR = 12, jb.ukr = o_ukr_ind_neon_8x12; break;
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
  int64_t slots = flops >= K_PAR_MIN_FLOPS ? (int64_t)k_threads() : 1;
  int64_t want = slots * 4;
  jb.mgroups = jb.npanels >= want ? 1 : min64(jb.mpanels, (want + jb.npanels - 1) / jb.npanels);
  jb.items = jb.npanels * jb.mgroups;
  /* a few chunks per thread: tiles are uneven at the edges (but one per
   * packing slot when panels are packed) */
  int64_t chunks = slots > 1 ? slots * 4 : 1;
  if (g->pack_b) chunks = min64(slots, (int64_t)(slots_avail ? slots_avail : 1));
  jb.chunks = min64(chunks, jb.items);
  k_parallel_chunks((size_t)jb.chunks, igemm_chunk, &jb);
}

void o_ukr_ind_generic_4x16(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                            const int64_t *boff, float *c, int64_t ldc, const float *bias) {
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
