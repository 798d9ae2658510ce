/* aten::grid_sampler_2d.out(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
 *                           bool align_corners, *, Tensor(a!) out)
 * Samples input [N, C, H, W] at the normalized (x, y) points of grid
 * [N, Ho, Wo, 2] into out [N, C, Ho, Wo], like torch.nn.functional.grid_sample:
 * interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros,
 * 1 border, 2 reflection. Floating point only, computed in double. */
#include "util/kernel_util.h"

typedef struct gs_plane {
  const pte_tensor *in;
  int64_t base, H, W;
  int64_t padding;
  bool align;
} gs_plane;

/* [-1, 1] to pixel coordinates. */
static double gs_unnormalize(double c, int64_t size, bool align) {
  return align ? (c + 1) / 2 * (double)(size - 1) : ((c + 1) * (double)size - 1) / 2;
}

static double gs_clip(double c, int64_t size) {
  return c < 0 ? 0 : c > (double)(size - 1) ? (double)(size - 1) : c;
}

/* Mirror c into [lo2 / 2, hi2 / 2] (bounds given doubled). */
static double gs_reflect(double c, int64_t lo2, int64_t hi2) {
  if (lo2 == hi2) return 0;
  double lo = (double)lo2 / 2, span = (double)(hi2 - lo2) / 2;
  c = fabs(c - lo);
  double extra = fmod(c, span);
  int64_t flips = (int64_t)floor(c / span);
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

/* Apply the padding mode to a pixel coordinate. */
static double gs_pad(double c, int64_t size, int64_t padding, bool align) {
  if (padding == 1) return gs_clip(c, size);
  if (padding == 2) {
    c = align ? gs_reflect(c, 0, 2 * (size - 1)) : gs_reflect(c, -1, 2 * size - 1);
    return gs_clip(c, size);
  }
  return c;
}

/* The input value at integer (x, y), 0 outside. */
static double gs_at(const gs_plane *p, int64_t x, int64_t y) {
  if (x < 0 || y < 0 || x >= p->W || y >= p->H) return 0;
  return k_get_d(p->in->data, p->in->dtype, p->base + y * p->in->strides[2] + x * p->in->strides[3]);
}

static double gs_cubic1(double x, double A) { return ((A + 2) * x - (A + 3)) * x * x + 1; }
static double gs_cubic2(double x, double A) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; }

static void gs_cubic_coeffs(double t, double *w) {
  const double A = -0.75;
  w[0] = gs_cubic2(t + 1, A);
  w[1] = gs_cubic1(t, A);
  w[2] = gs_cubic1(1 - t, A);
  w[3] = gs_cubic2(2 - t, A);
}

/* A bicubic tap: padding applies to each tap's coordinate. */
static double gs_tap(const gs_plane *p, int64_t x, int64_t y) {
  double px = gs_pad((double)x, p->W, p->padding, p->align),
         py = gs_pad((double)y, p->H, p->padding, p->align);
  return gs_at(p, (int64_t)px, (int64_t)py);
}

static double gs_sample(const gs_plane *p, int64_t mode, double gx, double gy) {
  double x = gs_unnormalize(gx, p->W, p->align), y = gs_unnormalize(gy, p->H, p->align);
  /* NaN and far-away points sample nothing (and stay clear of int64 casts) */
  if (x != x || y != y || fabs(x) > 1e15 || fabs(y) > 1e15) return 0;
  if (mode == 2) {
    double x0 = floor(x), y0 = floor(y), wx[4], wy[4], v = 0;
    gs_cubic_coeffs(x - x0, wx);
    gs_cubic_coeffs(y - y0, wy);
    for (int i = 0; i < 4; i++) {
      double row = 0;
      for (int j = 0; j < 4; j++) row += wx[j] * gs_tap(p, (int64_t)x0 - 1 + j, (int64_t)y0 - 1 + i);
      v += wy[i] * row;
    }
    return v;
  }
  x = gs_pad(x, p->W, p->padding, p->align);
  y = gs_pad(y, p->H, p->padding, p->align);
  if (mode == 1) return gs_at(p, (int64_t)nearbyint(x), (int64_t)nearbyint(y));
  double x0 = floor(x), y0 = floor(y);
  double tx = x - x0, ty = y - y0;
  int64_t ix = (int64_t)x0, iy = (int64_t)y0;
  return gs_at(p, ix, iy) * (1 - tx) * (1 - ty) + gs_at(p, ix + 1, iy) * tx * (1 - ty) +
         gs_at(p, ix, iy + 1) * (1 - tx) * ty + gs_at(p, ix + 1, iy + 1) * tx * ty;
}

static pte_status grid_sampler_2d_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *grid, *out;
  int64_t mode = 0, padding = 0;
  bool align = false;
  K_CHECK(k_nargs(ctx, nargs, 7));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_tensor(ctx, args, 1, &grid));
  K_CHECK(k_int(ctx, args, 2, &mode));
  K_CHECK(k_int(ctx, args, 3, &padding));
  K_CHECK(k_bool(ctx, args, 4, &align));
  K_CHECK(k_tensor(ctx, args, 5, &out));
  K_CHECK(k_has_data(ctx, in, "input"));
  K_CHECK(k_has_data(ctx, grid, "grid"));
  if (in->dim != 4 || grid->dim != 4 || grid->sizes[3] != 2 || grid->sizes[0] != in->sizes[0])
    return K_FAIL("grid_sampler_2d expects input [N, C, H, W] and grid [N, H_out, W_out, 2]");
  if (!k_is_float(in->dtype) || grid->dtype != in->dtype || out->dtype != in->dtype)
    return K_FAIL("grid_sampler_2d needs one floating point dtype (input %s, grid %s, out %s)",
                  pte_dtype_name(in->dtype), pte_dtype_name(grid->dtype), pte_dtype_name(out->dtype));
  if (mode < 0 || mode > 2) return K_FAIL("unknown interpolation mode %lld", (long long)mode);
  if (padding < 0 || padding > 2) return K_FAIL("unknown padding mode %lld", (long long)padding);
  int64_t N = in->sizes[0], C = in->sizes[1], Ho = grid->sizes[1], Wo = grid->sizes[2];
  if (in->sizes[2] <= 0 || in->sizes[3] <= 0) return K_FAIL("input spatial size must be positive");
  int64_t osz[4] = {N, C, Ho, Wo};
  K_CHECK(k_out(ctx, out, 4, osz));
  const int64_t *gs = grid->strides, *os = out->strides;
  gs_plane p = {in, 0, in->sizes[2], in->sizes[3], padding, align};
  for (int64_t n = 0; n < N; n++)
    for (int64_t h = 0; h < Ho; h++)
      for (int64_t w = 0; w < Wo; w++) {
        int64_t g = n * gs[0] + h * gs[1] + w * gs[2];
        double gx = k_get_d(grid->data, grid->dtype, g), gy = k_get_d(grid->data, grid->dtype, g + gs[3]);
        for (int64_t c = 0; c < C; c++) {
          p.base = n * in->strides[0] + c * in->strides[1];
          k_set_d(out->data, out->dtype, n * os[0] + c * os[1] + h * os[2] + w * os[3],
                  gs_sample(&p, mode, gx, gy));
        }
      }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(grid_sampler_2d_out, "aten::grid_sampler_2d.out")
