#include "softmax_backward.h"

#include "nn_util.h"

/* (grad_output, output, int dim, ScalarType input_dtype, *, out) */
pte_status kb_softmax_backward(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, bool log) {
  pte_tensor *go, *out, *gi;
  int64_t dim = 0, in_dtype = 0;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &go));
  K_CHECK(k_tensor(ctx, args, 1, &out));
  K_CHECK(k_int(ctx, args, 2, &dim));
  K_CHECK(k_int(ctx, args, 3, &in_dtype));
  K_CHECK(k_tensor(ctx, args, 4, &gi));
  K_CHECK(kb_float_input(ctx, go, go->dtype, "grad_output"));
  K_CHECK(kb_float_input(ctx, out, go->dtype, "output"));
  K_CHECK(kb_same_shape(ctx, out, go->dim, go->sizes, "output"));
  if (in_dtype != go->dtype || gi->dtype != go->dtype)
    return K_FAIL("input_dtype and grad_input must be grad_output's dtype %s", pte_dtype_name(go->dtype));
  int32_t d;
  K_CHECK(k_dim(ctx, dim, go->dim, &d));
  K_CHECK(k_disjoint(ctx, gi, go, "grad_output"));
  K_CHECK(k_disjoint(ctx, gi, out, "output"));
  K_CHECK(k_out_like(ctx, gi, go));
  K_CHECK(k_contiguous(ctx, gi, "grad_input"));
  int64_t outer, len, inner;
  kn_split(go, d, &outer, &len, &inner);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      int64_t base = o * len * inner + in;
      double s = 0;
      for (int64_t k = 0; k < len; k++) {
        int64_t at = base + k * inner;
        double g = k_get_d(go->data, go->dtype, at);
        s += log ? g : g * k_get_d(out->data, out->dtype, at);
      }
      for (int64_t k = 0; k < len; k++) {
        int64_t at = base + k * inner;
        double g = k_get_d(go->data, go->dtype, at), y = k_get_d(out->data, out->dtype, at);
        k_set_d(gi->data, gi->dtype, at, log ? g - exp(y) * s : y * (g - s));
      }
    }
  return PTE_OK;
}
