/* The kernel layer's Winograd convolution (klayer.h, winograd*.c) against a
 * direct convolution in double: F(2x2) and F(4x4), NCHW and NHWC strides,
 * odd map sizes, maps of one tile and of partial tiles, padding 1, 0 and
 * asymmetric, channel counts off the vector widths, bias or none, clamp,
 * batches, serial and on a pool of 3 threads (ctest runs it once per
 * instruction set); the refusals (short scratch, bad plans) and the
 * PTERUN_CONV_WINOGRAD switch. Errors are measured against the direct
 * result's magnitude sum_k |x w| (the scale fp32 rounding works on). */
#define _POSIX_C_SOURCE 200809L
#include <pterun/threadpool.h>

#include <stdint.h>
#include <stdlib.h>

#include "../common/test_util.h"
#include "klayer.h"

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint32_t urand(void) {
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return (uint32_t)(g_rng >> 32);
}
static float frand(void) { return (float)(urand() & 0xffff) / 32768.0f - 1.0f; }

static bool g_pack_with;

typedef struct shape {
  int64_t N, C, OC, H, W;
  int32_t pt, pl, pb, pr;
} shape;

/* Largest |winograd - direct| / (sum |x w| + |b|) over the output. */
static TEST_REFERENCE double run_one(const shape *s, int32_t m, bool nhwc, bool bias, bool clamp,
                                     double *worst_abs) {
  const int64_t OH = s->H + s->pt + s->pb - 2, OW = s->W + s->pl + s->pr - 2;
  const int64_t xn = s->N * s->C * s->H * s->W, yn = s->N * s->OC * OH * OW;
  float *x = malloc((size_t)xn * sizeof(float)), *w = malloc((size_t)(s->OC * s->C * 9) * sizeof(float));
  float *b = malloc((size_t)s->OC * sizeof(float)), *y = malloc((size_t)(yn + 1) * sizeof(float));
  for (int64_t i = 0; i < xn; i++) x[i] = frand();
  for (int64_t i = 0; i < s->OC * s->C * 9; i++) w[i] = frand();
  for (int64_t i = 0; i < s->OC; i++) b[i] = frand();
  /* strides: x and y NCHW or NHWC, w [OC][C][3][3] or [OC][3][3][C] */
  int64_t sxn = s->C * s->H * s->W, sxc = nhwc ? 1 : s->H * s->W, sxh = nhwc ? s->W * s->C : s->W,
          sxw = nhwc ? s->C : 1;
  int64_t syn = s->OC * OH * OW, syc = nhwc ? 1 : OH * OW, syh = nhwc ? OW * s->OC : OW,
          syw = nhwc ? s->OC : 1;
  int64_t woc = 9 * s->C, wic = nhwc ? 1 : 9, wkh = nhwc ? 3 * s->C : 3, wkw = nhwc ? s->C : 1;
  k_wino_plan p;
  double worst = -1.0;
  if (!k_wino_plan_init(&p, s->C, s->OC, s->H, s->W, OH, OW, s->pt, s->pl, m)) goto done;
  float *u = aligned_alloc(64, (p.u_floats * sizeof(float) + 63) & ~(size_t)63);
  size_t sb = k_wino_scratch(&p);
  void *scratch = malloc(sb);
  float *tmp = malloc(k_wino_pack_tmp_floats(&p) * sizeof(float));
  if (!u || !scratch || !tmp) {
    free(u), free(scratch), free(tmp);
    goto done;
  }
  /* the load-time packing (double, straight into the panels) or the
   * per-call one (float, through a temporary) */
  if (g_pack_with) k_wino_pack_with(&p, w, woc, wic, wkh, wkw, u, tmp);
  else k_wino_pack(&p, w, woc, wic, wkh, wkw, u);
  free(tmp);
  const float lo = -0.5f, hi = 0.75f;
  y[yn] = 12345.0f; /* past the end: must stay */
  k_wino_desc d = {&p,    s->N, x,  sxn,     sxc, sxh, sxw, y, syn, syc, syh, syw, u, bias ? b : NULL,
                   clamp, lo,   hi, scratch, sb,  true};
  if (!k_wino_conv(&d) || y[yn] != 12345.0f) {
    free(u), free(scratch);
    goto done;
  }
  worst = 0.0;
  *worst_abs = 0.0;
  for (int64_t n = 0; n < s->N; n++)
    for (int64_t oc = 0; oc < s->OC; oc++)
      for (int64_t oy = 0; oy < OH; oy++)
        for (int64_t ox = 0; ox < OW; ox++) {
          double acc = bias ? b[oc] : 0.0, mag = bias ? fabs(b[oc]) : 0.0;
          for (int64_t ic = 0; ic < s->C; ic++)
            for (int kh = 0; kh < 3; kh++)
              for (int kw = 0; kw < 3; kw++) {
                int64_t iy = oy + kh - s->pt, ix = ox + kw - s->pl;
                if (iy < 0 || iy >= s->H || ix < 0 || ix >= s->W) continue;
                double xv = x[n * sxn + ic * sxc + iy * sxh + ix * sxw];
                double wvv = w[oc * woc + ic * wic + kh * wkh + kw * wkw];
                acc += xv * wvv, mag += fabs(xv * wvv);
              }
          if (clamp) acc = acc < lo ? lo : acc > hi ? hi : acc;
          double got = y[n * syn + oc * syc + oy * syh + ox * syw];
          double e = fabs(got - acc);
          if (!(e <= 1e30)) e = 1e30; /* NaN */
          if (e > *worst_abs) *worst_abs = e;
          if (e / (mag + 1e-6) > worst) worst = e / (mag + 1e-6);
        }
  free(u), free(scratch);
done:
  free(x), free(w), free(b), free(y);
  return worst;
}

static const shape g_shapes[] = {
    {1, 3, 5, 7, 7, 1, 1, 1, 1},     /* 7x7, channels under a vector */
    {1, 17, 33, 9, 11, 1, 1, 1, 1},  /* odd map, partial tiles, odd channels */
    {2, 16, 24, 8, 8, 1, 1, 1, 1},   /* batch of 2 */
    {1, 8, 8, 4, 4, 0, 0, 0, 0},     /* no padding: 2x2 out, one partial tile */
    {1, 5, 7, 6, 6, 0, 0, 0, 0},     /* no padding: 4x4 out, one F(4x4) tile */
    {1, 9, 130, 3, 3, 1, 1, 1, 1},   /* 3x3 map, output channels over one block */
    {1, 20, 19, 13, 5, 1, 0, 0, 1},  /* asymmetric padding */
    {1, 1, 1, 1, 1, 1, 1, 1, 1},     /* 1x1 map */
    {1, 64, 64, 14, 14, 1, 1, 1, 1}, /* a ResNet-like layer */
    {1, 300, 40, 5, 6, 1, 1, 1, 1},  /* K over the product's K block */
    {3, 7, 160, 10, 3, 1, 1, 1, 1},  /* batch x tiles over a block, channel split */
};

/* Relative-to-magnitude bounds: fp32 Winograd's error grows with m (the
 * transforms' coefficients reach 8 and 1/24); direct fp32 is ~1e-7. */
static double bound(int32_t m) { return m == 4 ? 2e-5 : 4e-6; }

static void sweep(size_t threads) {
  CHECK_OK(pte_threadpool_set_threads(threads));
  for (size_t i = 0; i < sizeof g_shapes / sizeof g_shapes[0]; i++)
    for (int32_t m = 2; m <= 4; m += 2)
      for (int v = 0; v < 8; v++) {
        const bool nhwc = v & 1, bias = (v & 3) != 2, clamp = (v & 3) == 3;
        g_pack_with = v >= 4;
        double abs_err = 0.0;
        double e = run_one(&g_shapes[i], m, nhwc, bias, clamp, &abs_err);
        CHECK(e >= 0.0 && e <= bound(m),
              "shape %zu m %d %s bias %d clamp %d pack_with %d threads %zu: relative error %.3g (abs %.3g)",
              i, (int)m, nhwc ? "nhwc" : "nchw", bias, clamp, g_pack_with, threads, e, abs_err);
      }
}

TEST(winograd_serial) { sweep(1); }
TEST(winograd_three_threads) { sweep(3); }

/* A ResNet-18 layer size: the error stays small with 576 terms. */
TEST(winograd_resnet_layer) {
  CHECK_OK(pte_threadpool_set_threads(2));
  const shape s = {1, 128, 128, 28, 28, 1, 1, 1, 1};
  g_pack_with = false;
  for (int32_t m = 2; m <= 4; m += 2) {
    double abs_err = 0.0, e = run_one(&s, m, true, true, false, &abs_err);
    printf("  128ch 28x28 F(%dx%d): max relative error %.3g, max abs %.3g\n", (int)m, (int)m, e, abs_err);
    CHECK(e >= 0.0 && e <= bound(m), "m %d: relative error %.3g", (int)m, e);
  }
}

/* One conv of shape s (NCHW, [OC][C][3][3] filter packed by k_wino_pack)
 * on `threads` threads into y (s->N * OC * OH * OW floats). */
static bool run_split(const shape *s, int32_t m, size_t threads, const float *x, const float *w,
                      const float *b, float *y) {
  const int64_t OH = s->H + s->pt + s->pb - 2, OW = s->W + s->pl + s->pr - 2;
  k_wino_plan p;
  if (pte_threadpool_set_threads(threads) ||
      !k_wino_plan_init(&p, s->C, s->OC, s->H, s->W, OH, OW, s->pt, s->pl, m))
    return false;
  float *u = aligned_alloc(64, (p.u_floats * sizeof(float) + 63) & ~(size_t)63);
  size_t sb = k_wino_scratch(&p);
  void *scratch = malloc(sb);
  bool ok = u && scratch;
  if (ok) {
    k_wino_pack(&p, w, 9 * s->C, 9, 3, 1, u);
    k_wino_desc d = {&p,
                     s->N,
                     x,
                     s->C * s->H * s->W,
                     s->H * s->W,
                     s->W,
                     1,
                     y,
                     s->OC * OH * OW,
                     OH * OW,
                     OW,
                     1,
                     u,
                     b,
                     true,
                     -0.5f,
                     0.75f,
                     scratch,
                     sb,
                     true};
    ok = k_wino_conv(&d);
  }
  free(u), free(scratch);
  return ok;
}

/* The split over threads (tile blocks of nearly equal size, output channel
 * blocks on few tiles) changes who computes what, not what is computed: 2
 * and 3 threads give the 1-thread result to the bit. ResNet-18's maps (49
 * tiles: 14x14 on F(2x2) and 28x28 on F(4x4); 196: 56x56), a map under a
 * block, a batch. */
TEST(winograd_split_matches_serial) {
  static const shape shapes[] = {
      {1, 64, 64, 56, 56, 1, 1, 1, 1}, {1, 128, 128, 28, 28, 1, 1, 1, 1}, {1, 256, 160, 14, 14, 1, 1, 1, 1},
      {1, 16, 24, 9, 9, 1, 1, 1, 1},   {3, 32, 40, 12, 10, 1, 1, 1, 1},
  };
  static const int32_t ms[] = {4, 4, 2, 4, 2};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    const shape *s = &shapes[i];
    const int64_t OH = s->H, OW = s->W, xn = s->N * s->C * s->H * s->W, yn = s->N * s->OC * OH * OW;
    float *x = malloc((size_t)xn * sizeof(float)), *w = malloc((size_t)(s->OC * s->C * 9) * sizeof(float));
    float *b = malloc((size_t)s->OC * sizeof(float)), *y1 = malloc((size_t)yn * sizeof(float)),
          *yt = malloc((size_t)yn * sizeof(float));
    for (int64_t k = 0; k < xn; k++) x[k] = frand();
    for (int64_t k = 0; k < s->OC * s->C * 9; k++) w[k] = frand();
    for (int64_t k = 0; k < s->OC; k++) b[k] = frand();
    CHECK(run_split(s, ms[i], 1, x, w, b, y1), "shape %zu: serial run refused", i);
    for (size_t t = 2; t <= 3; t++) {
      for (int64_t k = 0; k < yn; k++) yt[k] = NAN;
      CHECK(run_split(s, ms[i], t, x, w, b, yt), "shape %zu: %zu threads refused", i, t);
      int64_t bad = 0;
      for (int64_t k = 0; k < yn; k++) bad += memcmp(&y1[k], &yt[k], sizeof(float)) != 0;
      CHECK(bad == 0, "shape %zu, %zu threads: %lld of %lld outputs differ from 1 thread's", i, t,
            (long long)bad, (long long)yn);
    }
    free(x), free(w), free(b), free(y1), free(yt);
  }
  CHECK_OK(pte_threadpool_set_threads(1));
}

/* a and b within a float rounding of each other (the packing sums in
 * double; with FMA contraction, which clang does in the ISA files only, a
 * sum's last bit may differ between the copy's row kernel and the strided
 * scalar loop) */
static bool same_floats(const float *a, const float *b, size_t n) {
  for (size_t k = 0; k < n; k++)
    if (!(a[k] == b[k] || fabsf(a[k] - b[k]) <= 2.4e-7f * fmaxf(fabsf(a[k]), fabsf(b[k])))) return false;
  return true;
}

/* The scaled packing (a folded batch norm's) through the copy gives the
 * packing of the filter scaled beforehand, in both layouts. */
TEST(winograd_pack_scaled) {
  const int64_t C = 24, OC = 40;
  k_wino_plan p;
  CHECK(k_wino_plan_init(&p, C, OC, 16, 16, 16, 16, 1, 1, 4), "plan refused");
  float *w = malloc((size_t)(OC * C * 9) * sizeof(float)), *ws = malloc((size_t)(OC * C * 9) * sizeof(float));
  float *sc = malloc((size_t)OC * sizeof(float));
  float *copy = malloc(k_wino_pack_copy_floats(&p) * sizeof(float));
  float *u1 = aligned_alloc(64, (p.u_floats * sizeof(float) + 63) & ~(size_t)63);
  float *u2 = aligned_alloc(64, (p.u_floats * sizeof(float) + 63) & ~(size_t)63);
  for (int64_t k = 0; k < OC; k++) sc[k] = frand() + 1.5f;
  for (int64_t k = 0; k < OC * C * 9; k++) w[k] = frand();
  for (int nhwc = 0; nhwc < 2; nhwc++) {
    const int64_t woc = 9 * C, wic = nhwc ? 1 : 9, wkh = nhwc ? 3 * C : 3, wkw = nhwc ? C : 1;
    for (int64_t k = 0; k < OC * C * 9; k++) ws[k] = w[k] * sc[k / woc];
    memset(u1, 0, p.u_floats * sizeof(float));
    memset(u2, 0xff, p.u_floats * sizeof(float));
    k_wino_pack(&p, ws, woc, wic, wkh, wkw, u1);
    CHECK(k_wino_pack_scaled(&p, w, woc, wic, wkh, wkw, sc, copy, u2), "scaled packing refused");
    const bool same_scaled = same_floats(u1, u2, p.u_floats);
    CHECK(k_wino_pack_scaled(&p, ws, woc, wic, wkh, wkw, NULL, copy, u2), "copy packing refused");
    const bool same_copy = same_floats(u1, u2, p.u_floats);
    if (!same_scaled || !same_copy) free(w), free(ws), free(sc), free(copy), free(u1), free(u2);
    CHECK(same_scaled, "%s: scaled packing differs", nhwc ? "nhwc" : "nchw");
    CHECK(same_copy, "%s: packing through the copy differs", nhwc ? "nhwc" : "nchw");
  }
  CHECK(!k_wino_pack_scaled(&p, w, 9 * C, 9, 3, 1, sc, NULL, u2), "a scale without a copy accepted");
  free(w), free(ws), free(sc), free(copy), free(u1), free(u2);
}

TEST(winograd_refusals) {
  k_wino_plan p;
  CHECK(!k_wino_plan_init(&p, 4, 4, 8, 8, 8, 8, 1, 1, 3), "m = 3 accepted");
  CHECK(!k_wino_plan_init(&p, 0, 4, 8, 8, 8, 8, 1, 1, 4), "no channels accepted");
  CHECK(!k_wino_plan_init(&p, 4, 4, 8, 8, 8, 8, -1, 1, 4), "negative padding accepted");
  CHECK(!k_wino_plan_init(&p, (int64_t)1 << 40, 4, 8, 8, 8, 8, 1, 1, 4), "huge channels accepted");
  CHECK(k_wino_plan_init(&p, 4, 4, 8, 8, 8, 8, 1, 1, 4), "plan refused");
  float x[4 * 64] = {0}, y[4 * 64];
  char small[64];
  k_wino_desc d = {&p, 1, x,    256,  64,    8, 1, y,     256,          64,
                   8,  1, NULL, NULL, false, 0, 0, small, sizeof small, true};
  CHECK(!k_wino_conv(&d), "ran on %zu bytes of scratch (a slot is %zu)", sizeof small, p.slot_bytes);
}

TEST(winograd_switch) {
  /* the test environment sets nothing: the automatic choice */
  setenv("PTERUN_CONV_WINOGRAD", "0", 1);
  CHECK(k_wino_choose(64, 64, 56, 56) == 0, "=0 did not disable");
  setenv("PTERUN_CONV_WINOGRAD", "2", 1);
  CHECK(k_wino_choose(64, 64, 56, 56) == 2, "=2 not forced");
  setenv("PTERUN_CONV_WINOGRAD", "4", 1);
  CHECK(k_wino_choose(64, 64, 7, 7) == 4, "=4 not forced");
  unsetenv("PTERUN_CONV_WINOGRAD");
  CHECK(k_wino_choose(64, 64, 56, 56) == 4, "56x56 not on F(4x4)");
  CHECK(k_wino_choose(256, 256, 14, 14) == 2, "14x14 not on F(2x2)");
  CHECK(k_wino_choose(512, 512, 7, 7) == 0, "7x7 not direct");
}

TEST_MAIN(T(winograd_serial), T(winograd_three_threads), T(winograd_resnet_layer),
          T(winograd_split_matches_serial), T(winograd_pack_scaled), T(winograd_refusals), T(winograd_switch))
