/* quantized_decomposed::choose_qparams_per_token_asymmetric.out(Tensor input,
 *     ScalarType dtype, *, Tensor(a!) scale_out, Tensor(b!) zero_point_out)
 *
 * choose_qparams for each row of the last dim, into [-128, 127] whatever
 * `dtype` says (as ExecuTorch does); the outputs are resized to input's
 * shape with a last dim of 1. */
#include "util/qutil.h"

static pte_status choose_qparams_per_token_asymmetric_out(pte_kernel_ctx *ctx, pte_value **args,
                                                          int32_t nargs) {
  pte_tensor *in, *scale, *zp;
  int32_t dtype;
  int64_t sizes[PTE_MAX_DIM];
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(q_dtype_arg(ctx, args, 1, &dtype));
  K_CHECK(k_tensor(ctx, args, 2, &scale));
  K_CHECK(k_tensor(ctx, args, 3, &zp));
  if (in->dim < 1) return K_FAIL("input must have at least one dim");
  memcpy(sizes, in->sizes, sizeof(int64_t) * (size_t)in->dim);
  sizes[in->dim - 1] = 1;
  K_CHECK(k_out(ctx, scale, in->dim, sizes));
  K_CHECK(k_out(ctx, zp, in->dim, sizes));
  K_CHECK(q_check_choose(ctx, in, -128, 127, scale, zp));
  int64_t rows = q_span(in, 0, in->dim - 1);
  q_choose_rows(in, rows, in->sizes[in->dim - 1], -128, 127, scale, zp);
  return PTE_OK;
}

/* one line: CMake's kernel-list scan (a selective build) reads the name here */
// clang-format off
PTE_QUANT_KERNEL(choose_qparams_per_token_asymmetric_out, "quantized_decomposed::choose_qparams_per_token_asymmetric.out")
// clang-format on
