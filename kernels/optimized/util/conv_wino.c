#include "conv_wino.h"

/* Tiles (over the batch) from which the per-call filter transform paid
 * (bench_gemm resnet18, 1 thread, per layer against the direct path):
 * F(4x4) 0.65x on 56x56 (196 tiles), 0.85x on 28x28 (49; F(2x2) there
 * 0.93x); F(2x2) 1.5x on 14x14 (49 tiles: its 16 points' transform is
 * as much memory traffic as the products). */
#define WINO4_MIN_TILES 36
#define WINO2_MIN_TILES 64

static int64_t tiles(int64_t N, int64_t OH, int64_t OW, int64_t m) {
  return N * ((OH + m - 1) / m) * ((OW + m - 1) / m);
}

bool o_wino_plan(int64_t N, int64_t C, int64_t OC, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t ph,
                 int64_t pw, o_wino *w) {
  if (N < 1 || ph > 2 || pw > 2 || N > ((int64_t)1 << 20)) return false;
  int32_t m = k_wino_choose(C, OC, OH, OW);
  if (m == 4 && tiles(N, OH, OW, 4) < WINO4_MIN_TILES) m = 2;
  if (m == 2 && tiles(N, OH, OW, 2) < WINO2_MIN_TILES) m = 0;
  if (!m || !k_wino_plan_init(&w->p, C, OC, H, W, OH, OW, (int32_t)ph, (int32_t)pw, m)) return false;
  w->N = N;
  const size_t u = k_align64(w->p.u_floats * sizeof(float));
  const size_t t = k_align64(k_wino_pack_tmp_floats(&w->p) * sizeof(float));
  const size_t f = k_align64((size_t)(9 * C * OC) * sizeof(float));
  w->tmp_off = u;
  w->wt_off = u + t;
  w->run_off = u + t + f;
  w->bytes = w->run_off + k_wino_scratch(&w->p);
  return true;
}

bool o_wino_run(const o_wino *w, const float *x, const float *filter, const float *bias, float *y,
                void *scratch, size_t bytes) {
  if (!scratch || bytes < w->bytes) return false;
  const k_wino_plan *p = &w->p;
  uint8_t *s = scratch;
  float *u = (float *)s;
  /* filter [OC][C][3][3], transposed to [C][3][3][OC] first: the
   * transform's vectors run over output channels, which are then
   * contiguous (read in place, a lane at a time, it cost as much as the
   * products on 56x56) */
  float *wt = (float *)(s + w->wt_off);
  const int64_t sizes[2] = {p->OC, 9 * p->C}, ss[2] = {9 * p->C, 1}, ds[2] = {1, p->OC};
  k_copy(wt, ds, filter, ss, 2, sizes, sizeof(float), true);
  k_wino_pack_with(p, wt, 1, 9 * p->OC, 3 * p->OC, p->OC, u, (float *)(s + w->tmp_off));
  k_wino_desc d = {.p = p,
                   .N = w->N,
                   .x = x,
                   .sxn = p->C * p->H * p->W,
                   .sxc = p->H * p->W,
                   .sxh = p->W,
                   .sxw = 1,
                   .y = y,
                   .syn = p->OC * p->OH * p->OW,
                   .syc = p->OH * p->OW,
                   .syh = p->OW,
                   .syw = 1,
                   .u = u,
                   .bias = bias,
                   .scratch = s + w->run_off,
                   .scratch_bytes = bytes - w->run_off,
                   .parallel = true};
  return k_wino_conv(&d);
}
