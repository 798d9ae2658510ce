/* aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
 *     SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding,
 *     SymInt groups, *, Tensor(a!) out)
 * 1-D, 2-D and 3-D (de)convolution with stride, padding, dilation, groups
 * (depthwise included), output_padding and optional bias, for float and
 * integer dtypes.
 * Inputs are [N, C, *spatial] (or unbatched [C, *spatial]).
 *
 * Every case is mapped onto 3 spatial dims (D, H, W) with leading size-1
 * dims. float32 paths (contiguous tensors; strided ones, e.g. channels-last,
 * are repacked into kernel scratch first):
 *  - 1x1 stride-1 unpadded kernels: one matrix product per sample and group;
 *  - other forward convolutions with at least 16 taps per output: im2col
 *    tiles in bounded kernel scratch (256 KiB) and register-tiled matrix
 *    products;
 *  - the rest (depthwise, tiny kernels, transposed, or no scratch): direct
 *    loops accumulating into the output plane tile by tile, the innermost
 *    loop over contiguous output and input memory.
 * All of these accumulate in float like ATen. Other dtypes (and strided
 * tensors without scratch) use a gather loop accumulating in double. */
#include "util/kernel_util.h"
#include "util/nn_util.h"

typedef struct conv_geom {
  int64_t N, C, OC, G, icg, ocg;
  int64_t in[3], k[3], out[3], s[3], p[3], d[3], op[3];
  bool transposed;
} conv_geom;

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
static int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

/* Read an int list of 1 or S entries (1 = the same for every dim) into v[3]
 * aligned to the right (leading dims keep `dflt`). */
static pte_status spatial_arg(pte_kernel_ctx *ctx, pte_value **args, int32_t i, int32_t S, int64_t dflt,
                              const char *what, int64_t *v) {
  int64_t tmp[3] = {0, 0, 0};
  int32_t n = 0;
  K_CHECK(k_int_list(ctx, args, i, tmp, 3, &n));
  if (n != 1 && n != S) return K_FAIL("%s must have 1 or %d values, got %d", what, (int)S, (int)n);
  for (int32_t j = 0; j < 3; j++) v[j] = dflt;
  for (int32_t j = 0; j < S; j++) v[3 - S + j] = n == 1 ? tmp[0] : tmp[j];
  return PTE_OK;
}

#define TILE 4096 /* output floats per tile (16 KiB) */

/* 1x1 kernel, stride 1, no padding: per sample and group a matrix product
 * out[oc, pixels] = w[oc, ic] @ x[ic, pixels] + bias[oc]. */
static bool conv_is_pointwise(const conv_geom *g) {
  for (int j = 0; j < 3; j++)
    if (g->k[j] != 1 || g->s[j] != 1 || g->p[j] != 0) return false;
  return !g->transposed;
}

/* y[M, N] (row stride ldy) = w[M, K] @ x[K, N] (row stride ldx) + bias[M],
 * on this thread (see k_gemm in matmul.h). */
static void conv_gemm(int64_t M, int64_t N, int64_t K, const float *w, const float *x, int64_t ldx, float *y,
                      int64_t ldy, const float *bias) {
  k_sgemm_desc d = {.M = M,
                    .N = N,
                    .K = K,
                    .a = w,
                    .sa0 = K,
                    .sa1 = 1,
                    .b = x,
                    .sb0 = ldx,
                    .sb1 = 1,
                    .c = y,
                    .sc0 = ldy,
                    .alpha = 1.0f,
                    .beta = 1.0f,
                    .row_bias = bias};
  k_sgemm(&d);
}

static void conv_pointwise_f32(const conv_geom *g, const float *x, const float *w, const float *bias,
                               float *y) {
  int64_t P = g->in[0] * g->in[1] * g->in[2];
  for (int64_t n = 0; n < g->N; n++)
    for (int64_t gr = 0; gr < g->G; gr++)
      conv_gemm(g->ocg, P, g->icg, w + gr * g->ocg * g->icg, x + (n * g->C + gr * g->icg) * P, P,
                y + (n * g->OC + gr * g->ocg) * P, P, bias ? bias + gr * g->ocg : NULL);
}

/* Lowering to matrix products through im2col tiles: for a tile of T output
 * pixels, col[r][t] holds the input value that kernel tap r (ic, kd, kh, kw,
 * in the weight's order) sees at pixel t (0 in the padding); then
 * out[oc, tile] = w[oc, r] @ col[r, tile] + bias. The tile lives in kernel
 * scratch (bounded, see convolution_scratch). */
#define COL_BUDGET (256 * 1024)

static int64_t conv_col_rows(const conv_geom *g) { return g->icg * g->k[0] * g->k[1] * g->k[2]; }

static void conv_im2col_f32(const conv_geom *g, const float *x, const float *w, const float *bias, float *y,
                            float *col, int64_t T) {
  const int64_t ID = g->in[0], IH = g->in[1], IW = g->in[2];
  const int64_t KD = g->k[0], KH = g->k[1], KW = g->k[2];
  const int64_t OH = g->out[1], OW = g->out[2];
  const int64_t P = g->out[0] * OH * OW, R = conv_col_rows(g), iplane = ID * IH * IW;
  for (int64_t n = 0; n < g->N; n++)
    for (int64_t gr = 0; gr < g->G; gr++) {
      const float *xg = x + (n * g->C + gr * g->icg) * iplane;
      for (int64_t p0 = 0; p0 < P; p0 += T) {
        int64_t t_n = P - p0 < T ? P - p0 : T;
        int64_t r = 0;
        for (int64_t ic = 0; ic < g->icg; ic++)
          for (int64_t kd = 0; kd < KD; kd++)
            for (int64_t kh = 0; kh < KH; kh++)
              for (int64_t kw = 0; kw < KW; kw++, r++) {
                float *cr = col + r * t_n;
                const float *xc = xg + ic * iplane;
                int64_t od = p0 / (OH * OW), oh = (p0 / OW) % OH, ow = p0 % OW;
                for (int64_t t = 0; t < t_n; t++) {
                  int64_t id = od * g->s[0] - g->p[0] + kd * g->d[0];
                  int64_t ih = oh * g->s[1] - g->p[1] + kh * g->d[1];
                  int64_t iw = ow * g->s[2] - g->p[2] + kw * g->d[2];
                  cr[t] = (id >= 0 && id < ID && ih >= 0 && ih < IH && iw >= 0 && iw < IW)
                              ? xc[(id * IH + ih) * IW + iw]
                              : 0.0f;
                  if (++ow == OW) {
                    ow = 0;
                    if (++oh == OH) {
                      oh = 0;
                      od++;
                    }
                  }
                }
              }
        conv_gemm(g->ocg, t_n, R, w + gr * g->ocg * R, col, t_n, y + (n * g->OC + gr * g->ocg) * P + p0, P,
                  bias ? bias + gr * g->ocg : NULL);
      }
    }
}

static void conv_f32(const conv_geom *g, const float *x, const float *w, const float *bias, float *y) {
  const int64_t ID = g->in[0], IH = g->in[1], IW = g->in[2];
  const int64_t KD = g->k[0], KH = g->k[1], KW = g->k[2];
  const int64_t OD = g->out[0], OH = g->out[1], OW = g->out[2];
  const int64_t iplane = ID * IH * IW, oplane = OD * OH * OW, ksize = KD * KH * KW;
  /* tile = a run of (od, oh) rows */
  int64_t rows = OD * OH, tile_rows = OW >= TILE ? 1 : TILE / OW;
  for (int64_t n = 0; n < g->N; n++)
    for (int64_t gr = 0; gr < g->G; gr++)
      for (int64_t oc = 0; oc < g->ocg; oc++) {
        int64_t occ = gr * g->ocg + oc;
        float *yp = y + (n * g->OC + occ) * oplane;
        float b0 = bias ? bias[occ] : 0.0f;
        for (int64_t r0 = 0; r0 < rows; r0 += tile_rows) {
          int64_t r1 = r0 + tile_rows < rows ? r0 + tile_rows : rows;
          for (int64_t i = r0 * OW; i < r1 * OW; i++) yp[i] = b0;
          for (int64_t ic = 0; ic < g->icg; ic++) {
            const float *xp = x + (n * g->C + gr * g->icg + ic) * iplane;
            const float *wp = w + (occ * g->icg + ic) * ksize;
            for (int64_t kd = 0; kd < KD; kd++)
              for (int64_t kh = 0; kh < KH; kh++)
                for (int64_t kw = 0; kw < KW; kw++) {
                  float wv = wp[(kd * KH + kh) * KW + kw];
                  int64_t shift = kw * g->d[2] - g->p[2];
                  int64_t lo = ceil_div(-shift, g->s[2]), hi = floor_div(IW - 1 - shift, g->s[2]) + 1;
                  if (lo < 0) lo = 0;
                  if (hi > OW) hi = OW;
                  if (lo >= hi) continue;
                  for (int64_t r = r0; r < r1; r++) {
                    int64_t od = r / OH, oh = r % OH;
                    int64_t id = od * g->s[0] - g->p[0] + kd * g->d[0];
                    int64_t ih = oh * g->s[1] - g->p[1] + kh * g->d[1];
                    if (id < 0 || id >= ID || ih < 0 || ih >= IH) continue;
                    const int64_t sw = g->s[2], cnt = hi - lo;
                    float *yr = yp + r * OW + lo;
                    const float *xr = xp + (id * IH + ih) * IW + lo * sw + shift;
                    if (sw == 1) {
                      for (int64_t j = 0; j < cnt; j++) yr[j] += wv * xr[j];
                    } else {
                      for (int64_t j = 0; j < cnt; j++) yr[j] += wv * xr[j * sw];
                    }
                  }
                }
          }
        }
      }
}

static void conv_transposed_f32(const conv_geom *g, const float *x, const float *w, const float *bias,
                                float *y) {
  const int64_t ID = g->in[0], IH = g->in[1], IW = g->in[2];
  const int64_t KD = g->k[0], KH = g->k[1], KW = g->k[2];
  const int64_t OD = g->out[0], OH = g->out[1], OW = g->out[2];
  const int64_t iplane = ID * IH * IW, oplane = OD * OH * OW, ksize = KD * KH * KW;
  for (int64_t n = 0; n < g->N; n++)
    for (int64_t gr = 0; gr < g->G; gr++)
      for (int64_t oc = 0; oc < g->ocg; oc++) {
        int64_t occ = gr * g->ocg + oc;
        float *yp = y + (n * g->OC + occ) * oplane;
        float b0 = bias ? bias[occ] : 0.0f;
        for (int64_t i = 0; i < oplane; i++) yp[i] = b0;
        for (int64_t ic = 0; ic < g->icg; ic++) {
          int64_t icc = gr * g->icg + ic;
          const float *xp = x + (n * g->C + icc) * iplane;
          const float *wp = w + (icc * g->ocg + oc) * ksize; /* weight is [C, OC/G, k...] */
          for (int64_t kd = 0; kd < KD; kd++)
            for (int64_t kh = 0; kh < KH; kh++)
              for (int64_t kw = 0; kw < KW; kw++) {
                float wv = wp[(kd * KH + kh) * KW + kw];
                int64_t shift = kw * g->d[2] - g->p[2];
                /* ow = iw * s + shift must be in [0, OW) */
                int64_t lo = ceil_div(-shift, g->s[2]), hi = floor_div(OW - 1 - shift, g->s[2]) + 1;
                if (lo < 0) lo = 0;
                if (hi > IW) hi = IW;
                if (lo >= hi) continue;
                for (int64_t id = 0; id < ID; id++) {
                  int64_t od = id * g->s[0] - g->p[0] + kd * g->d[0];
                  if (od < 0 || od >= OD) continue;
                  for (int64_t ih = 0; ih < IH; ih++) {
                    int64_t oh = ih * g->s[1] - g->p[1] + kh * g->d[1];
                    if (oh < 0 || oh >= OH) continue;
                    const int64_t sw = g->s[2], cnt = hi - lo;
                    float *yr = yp + (od * OH + oh) * OW + lo * sw + shift;
                    const float *xr = xp + (id * IH + ih) * IW + lo;
                    if (sw == 1) {
                      for (int64_t j = 0; j < cnt; j++) yr[j] += wv * xr[j];
                    } else {
                      for (int64_t j = 0; j < cnt; j++) yr[j * sw] += wv * xr[j];
                    }
                  }
                }
              }
        }
      }
}

/* Offset of element (n, c, d, h, w) of a tensor viewed with 3 spatial dims. */
typedef struct view5 {
  int64_t st[5];
} view5;

static view5 view_of(const pte_tensor *t, bool batched, int32_t S) {
  view5 v = {{0, 0, 0, 0, 0}};
  int32_t b = batched ? 1 : 0;
  if (batched) v.st[0] = t->strides[0];
  v.st[1] = t->strides[b];
  for (int32_t j = 0; j < S; j++) v.st[2 + 3 - S + j] = t->strides[b + 1 + j];
  return v;
}

static void conv_generic(const conv_geom *g, const pte_tensor *x, view5 vx, const pte_tensor *w, view5 vw,
                         const pte_tensor *bias, pte_tensor *y, view5 vy) {
  int64_t o3[3];
  /* integers accumulate in int64, wrapping (ATen wraps in the dtype: the
   * same bits once stored) */
  bool ints = k_is_int(y->dtype);
  for (int64_t n = 0; n < g->N; n++)
    for (int64_t oc = 0; oc < g->OC; oc++) {
      int64_t gr = oc / g->ocg, ocl = oc % g->ocg;
      double b0 = bias ? k_get_d(bias->data, bias->dtype, oc * bias->strides[0]) : 0.0;
      uint64_t bi0 = bias && ints ? (uint64_t)k_get_i(bias->data, bias->dtype, oc * bias->strides[0]) : 0;
      for (o3[0] = 0; o3[0] < g->out[0]; o3[0]++)
        for (o3[1] = 0; o3[1] < g->out[1]; o3[1]++)
          for (o3[2] = 0; o3[2] < g->out[2]; o3[2]++) {
            double acc = b0;
            uint64_t acci = bi0;
            for (int64_t ic = 0; ic < g->icg; ic++) {
              int64_t icc = gr * g->icg + ic;
              int64_t k3[3];
              for (k3[0] = 0; k3[0] < g->k[0]; k3[0]++)
                for (k3[1] = 0; k3[1] < g->k[1]; k3[1]++)
                  for (k3[2] = 0; k3[2] < g->k[2]; k3[2]++) {
                    int64_t xo = n * vx.st[0] + icc * vx.st[1];
                    bool ok = true;
                    for (int j = 0; j < 3 && ok; j++) {
                      int64_t i;
                      if (g->transposed) {
                        int64_t t = o3[j] + g->p[j] - k3[j] * g->d[j];
                        if (t < 0 || t % g->s[j]) {
                          ok = false;
                          break;
                        }
                        i = t / g->s[j];
                      } else {
                        i = o3[j] * g->s[j] - g->p[j] + k3[j] * g->d[j];
                      }
                      if (i < 0 || i >= g->in[j]) ok = false;
                      xo += i * vx.st[2 + j];
                    }
                    if (!ok) continue;
                    int64_t wo =
                        g->transposed ? icc * vw.st[0] + ocl * vw.st[1] : oc * vw.st[0] + ic * vw.st[1];
                    for (int j = 0; j < 3; j++) wo += k3[j] * vw.st[2 + j];
                    if (ints)
                      acci +=
                          (uint64_t)k_get_i(x->data, x->dtype, xo) * (uint64_t)k_get_i(w->data, w->dtype, wo);
                    else acc += k_get_d(x->data, x->dtype, xo) * k_get_d(w->data, w->dtype, wo);
                  }
            }
            int64_t yo = n * vy.st[0] + oc * vy.st[1];
            for (int j = 0; j < 3; j++) yo += o3[j] * vy.st[2 + j];
            if (ints) k_set_i(y->data, y->dtype, yo, (int64_t)acci);
            else k_set_d(y->data, y->dtype, yo, acc);
          }
    }
}

static pte_status convolution_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *w, *bias, *out;
  bool transposed = false;
  int64_t groups = 0;
  K_CHECK(k_nargs(ctx, nargs, 11));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_tensor(ctx, args, 1, &w));
  K_CHECK(k_opt_tensor(ctx, args, 2, &bias));
  K_CHECK(k_bool(ctx, args, 6, &transposed));
  K_CHECK(k_int(ctx, args, 8, &groups));
  K_CHECK(k_tensor(ctx, args, 9, &out));
  int32_t S = w->dim - 2;
  if (S < 1 || S > 3)
    return K_FAIL("only 1-D, 2-D and 3-D convolutions are supported (weight rank %d)", (int)w->dim);
  bool batched = in->dim == w->dim;
  if (!batched && in->dim != w->dim - 1)
    return K_FAIL("input of rank %d does not fit a weight of rank %d", (int)in->dim, (int)w->dim);
  if (!k_is_float(in->dtype) && !k_is_int(in->dtype))
    return K_FAIL("not implemented for %s", pte_dtype_name(in->dtype));
  if (w->dtype != in->dtype || out->dtype != in->dtype || (bias && bias->dtype != in->dtype))
    return K_FAIL("input, weight, bias and out must have the same dtype (%s, %s, %s, %s)",
                  pte_dtype_name(in->dtype), pte_dtype_name(w->dtype),
                  bias ? pte_dtype_name(bias->dtype) : "none", pte_dtype_name(out->dtype));
  conv_geom g;
  memset(&g, 0, sizeof g);
  g.transposed = transposed;
  K_CHECK(spatial_arg(ctx, args, 3, S, 1, "stride", g.s));
  K_CHECK(spatial_arg(ctx, args, 4, S, 0, "padding", g.p));
  K_CHECK(spatial_arg(ctx, args, 5, S, 1, "dilation", g.d));
  K_CHECK(spatial_arg(ctx, args, 7, S, 0, "output_padding", g.op));
  int32_t b = batched ? 1 : 0;
  g.N = batched ? in->sizes[0] : 1;
  g.C = in->sizes[b];
  g.G = groups;
  if (groups <= 0) return K_FAIL("groups must be positive, got %lld", (long long)groups);
  for (int32_t j = 0; j < 3; j++) {
    int32_t sj = j - (3 - S);
    g.in[j] = sj >= 0 ? in->sizes[b + 1 + sj] : 1;
    g.k[j] = sj >= 0 ? w->sizes[2 + sj] : 1;
    if (g.s[j] <= 0) return K_FAIL("stride must be positive");
    if (g.d[j] <= 0) return K_FAIL("dilation must be positive");
    if (g.p[j] < 0) return K_FAIL("padding must be non-negative");
    if (g.op[j] < 0) return K_FAIL("output_padding must be non-negative");
    if (g.k[j] <= 0) return K_FAIL("kernel size must be positive");
    if (g.s[j] > INT32_MAX || g.d[j] > INT32_MAX || g.p[j] > INT32_MAX || g.op[j] > INT32_MAX)
      return K_FAIL("convolution parameters are too large");
  }
  if (!transposed) {
    g.OC = w->sizes[0];
    if (g.C % groups || w->sizes[1] * groups != g.C)
      return K_FAIL("weight of shape [%lld, %lld, ...] with %lld groups does not fit %lld input channels",
                    (long long)w->sizes[0], (long long)w->sizes[1], (long long)groups, (long long)g.C);
    if (g.OC % groups)
      return K_FAIL("out channels %lld are not divisible by groups %lld", (long long)g.OC, (long long)groups);
    for (int32_t j = 0; j < 3; j++) {
      if (g.op[j] != 0) return K_FAIL("output_padding requires a transposed convolution");
      int64_t eff = g.d[j] * (g.k[j] - 1) + 1;
      if (g.in[j] + 2 * g.p[j] < eff)
        return K_FAIL("kernel size can't be greater than the padded input size");
      g.out[j] = (g.in[j] + 2 * g.p[j] - eff) / g.s[j] + 1;
    }
  } else {
    if (w->sizes[0] != g.C)
      return K_FAIL("transposed weight has %lld input channels, input has %lld", (long long)w->sizes[0],
                    (long long)g.C);
    if (g.C % groups)
      return K_FAIL("input channels %lld are not divisible by groups %lld", (long long)g.C,
                    (long long)groups);
    g.OC = w->sizes[1] * groups;
    for (int32_t j = 0; j < 3; j++) {
      if (g.op[j] >= g.s[j] && g.op[j] >= g.d[j])
        return K_FAIL("output padding must be smaller than either stride or dilation");
      g.out[j] = (g.in[j] - 1) * g.s[j] - 2 * g.p[j] + g.d[j] * (g.k[j] - 1) + g.op[j] + 1;
      if (g.out[j] <= 0) return K_FAIL("the output size would be non-positive");
    }
  }
  g.icg = g.C / groups;
  g.ocg = g.OC / groups;
  if (bias && (bias->dim != 1 || bias->sizes[0] != g.OC))
    return K_FAIL("bias must have shape [%lld]", (long long)g.OC);
  int64_t osz[PTE_MAX_DIM];
  if (batched) osz[0] = g.N;
  osz[b] = g.OC;
  for (int32_t j = 0; j < S; j++) osz[b + 1 + j] = g.out[3 - S + j];
  K_CHECK(k_out(ctx, out, in->dim, osz));
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  K_CHECK(k_has_data(ctx, in, "input"));
  K_CHECK(k_has_data(ctx, w, "weight"));
  if (bias) K_CHECK(k_has_data(ctx, bias, "bias"));
  if (pte_tensor_numel(in) == 0 || pte_tensor_numel(w) == 0) { /* nothing to accumulate: bias only */
    for (int64_t i = 0; i < pte_tensor_numel(out); i++) {
      int64_t c = (i / k_numel(S, g.out + 3 - S)) % g.OC;
      double v = bias ? k_get_d(bias->data, bias->dtype, c * bias->strides[0]) : 0.0;
      k_set_d(out->data, out->dtype, k_offset(out->dim, out->sizes, out->strides, i), v);
    }
    return PTE_OK;
  }
  /* float32: the fast path, over contiguous copies in scratch memory for
   * strided (e.g. channels-last) tensors when the scratch can hold them */
  const pte_tensor *all[4] = {in, w, bias, out};
  if (in->dtype == PTE_FLOAT32 && kn_pack_fits(ctx, all, 4)) {
    kn_packer pk;
    pte_tensor vi, vw, vb, vo;
    kn_packer_init(ctx, &pk);
    K_CHECK(kn_pack(ctx, &pk, in, true, &vi));
    K_CHECK(kn_pack(ctx, &pk, w, true, &vw));
    if (bias) K_CHECK(kn_pack(ctx, &pk, bias, true, &vb));
    K_CHECK(kn_pack(ctx, &pk, out, false, &vo));
    const float *bp = bias ? (const float *)vb.data : NULL;
    /* what is left of the scratch after packing can hold im2col tiles */
    int64_t R = conv_col_rows(&g), T = 0;
    uintptr_t col = ((uintptr_t)pk.next + 63) & ~(uintptr_t)63;
    if (pk.next && col < (uintptr_t)pk.end) T = (int64_t)(((uintptr_t)pk.end - col) / 4) / R;
    if (conv_is_pointwise(&g))
      conv_pointwise_f32(&g, (const float *)vi.data, (const float *)vw.data, bp, (float *)vo.data);
    else if (!transposed && g.icg * g.k[0] * g.k[1] * g.k[2] >= 16 && T >= 8)
      conv_im2col_f32(&g, (const float *)vi.data, (const float *)vw.data, bp, (float *)vo.data, (float *)col,
                      T);
    else if (transposed)
      conv_transposed_f32(&g, (const float *)vi.data, (const float *)vw.data, bp, (float *)vo.data);
    else conv_f32(&g, (const float *)vi.data, (const float *)vw.data, bp, (float *)vo.data);
    kn_unpack(&vo, out);
    return PTE_OK;
  }
  conv_generic(&g, in, view_of(in, batched, S), w, view_of(w, true, S), bias, out, view_of(out, batched, S));
  return PTE_OK;
}

static size_t convolution_scratch(pte_value *const *args, int32_t nargs) {
  static const int32_t idx[4] = {0, 1, 2, 9};
  size_t bytes = kn_pack_scratch(args, nargs, idx, 4);
  /* im2col tiles: up to COL_BUDGET bytes, at least 8 pixels' worth */
  if (nargs == 11 && args[1]->tag == PTE_TAG_TENSOR && args[9]->tag == PTE_TAG_TENSOR &&
      args[6]->tag == PTE_TAG_BOOL && !args[6]->u.b) {
    const pte_tensor *w = args[1]->u.tensor, *out = args[9]->u.tensor;
    if (w->dim >= 3 && w->dim <= 5 && out->dim >= 2) {
      int64_t R = k_numel(w->dim - 1, w->sizes + 1);
      int64_t P = k_numel(w->dim - 2, out->sizes + out->dim - (w->dim - 2));
      if (R >= 16 && R <= (1 << 20) && P > 0) {
        int64_t want = R * (P < 8 ? 8 : P) * 4;
        int64_t cap = R * 8 * 4 > COL_BUDGET ? R * 8 * 4 : COL_BUDGET;
        bytes += (size_t)(want < cap ? want : cap) + 64;
      }
    }
  }
  return bytes;
}

PTE_PORTABLE_KERNEL_EX(convolution_out, "aten::convolution.out", 0, convolution_scratch)
