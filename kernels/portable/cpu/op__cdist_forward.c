/* aten::_cdist_forward.out(Tensor x1, Tensor x2, float p, int? compute_mode, *, Tensor(a!) out)
 * out[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p for p >= 0 (p = 0
 * counts differing coordinates, p = inf takes the max), batch dims
 * broadcast. Accumulates in double; compute_mode only selects ATen's
 * algorithm. */
#include "util/nn_util.h"

static pte_status cdist_forward_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *x1, *x2, *out;
  double p = 0;
  int64_t mode = 0;
  bool has_mode = false;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &x1));
  K_CHECK(k_tensor(ctx, args, 1, &x2));
  K_CHECK(k_double(ctx, args, 2, &p));
  K_CHECK(k_opt_int(ctx, args, 3, &mode, &has_mode));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  if (!k_is_float(x1->dtype) || x2->dtype != x1->dtype || out->dtype != x1->dtype)
    return K_FAIL("cdist only supports floating point dtypes of one kind (x1 %s, x2 %s, out %s)",
                  pte_dtype_name(x1->dtype), pte_dtype_name(x2->dtype), pte_dtype_name(out->dtype));
  if (x1->dim < 2 || x2->dim < 2) return K_FAIL("cdist only supports at least 2-D tensors");
  if (x1->sizes[x1->dim - 1] != x2->sizes[x2->dim - 1])
    return K_FAIL("x1 and x2 must have the same number of columns");
  if (!(p >= 0)) return K_FAIL("cdist only supports non-negative p values");
  K_CHECK(k_has_data(ctx, x1, "x1"));
  K_CHECK(k_has_data(ctx, x2, "x2"));
  /* broadcast the batch dims */
  pte_tensor b1, b2;
  pte_tensor_init(&b1, x1->dtype, x1->dim - 2, x1->sizes, NULL);
  pte_tensor_init(&b2, x2->dtype, x2->dim - 2, x2->sizes, NULL);
  const pte_tensor *bs[2] = {&b1, &b2};
  int32_t bd = 0;
  int64_t sizes[PTE_MAX_DIM];
  K_CHECK(k_broadcast_shape(ctx, bs, 2, &bd, sizes));
  int64_t P = x1->sizes[x1->dim - 2], R = x2->sizes[x2->dim - 2], M = x1->sizes[x1->dim - 1];
  sizes[bd] = P;
  sizes[bd + 1] = R;
  K_CHECK(k_out(ctx, out, bd + 2, sizes));
  int64_t st1[PTE_MAX_DIM], st2[PTE_MAX_DIM];
  /* batch strides of x1/x2 viewed at the broadcast batch shape */
  for (int32_t k = 0; k < bd; k++) {
    int32_t a = k - (bd - b1.dim), c = k - (bd - b2.dim);
    st1[k] = (a < 0 || x1->sizes[a] == 1) ? 0 : x1->strides[a];
    st2[k] = (c < 0 || x2->sizes[c] == 1) ? 0 : x2->strides[c];
  }
  int64_t batches = k_numel(bd, sizes);
  const int64_t r1 = x1->strides[x1->dim - 2], c1 = x1->strides[x1->dim - 1];
  const int64_t r2 = x2->strides[x2->dim - 2], c2 = x2->strides[x2->dim - 1];
  for (int64_t bi = 0; bi < batches; bi++) {
    int64_t o1 = k_offset(bd, sizes, st1, bi), o2 = k_offset(bd, sizes, st2, bi);
    for (int64_t i = 0; i < P; i++)
      for (int64_t j = 0; j < R; j++) {
        double acc = 0;
        for (int64_t m = 0; m < M; m++) {
          double d = fabs(k_get_d(x1->data, x1->dtype, o1 + i * r1 + m * c1) -
                          k_get_d(x2->data, x2->dtype, o2 + j * r2 + m * c2));
          acc = kn_dist_acc(acc, d, p);
        }
        double v = kn_dist_finish(acc, p);
        k_set_d(out->data, out->dtype, k_offset(out->dim, out->sizes, out->strides, bi * P * R + i * R + j),
                v);
      }
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(cdist_forward_out, "aten::_cdist_forward.out")
