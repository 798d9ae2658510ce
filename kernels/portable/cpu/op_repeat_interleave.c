/* aten::repeat_interleave.Tensor_out(Tensor repeats, *, SymInt? output_size=None, Tensor(a!) out)
 * out = [0] * repeats[0] + [1] * repeats[1] + ... (repeats: 1-D int32/int64,
 * non-negative; out has repeats' dtype). */
#include "util/copy_util.h"

static pte_status repeat_interleave_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *repeats, *out;
  int64_t output_size = 0;
  bool has_size = false;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &repeats));
  K_CHECK(k_opt_int(ctx, args, 1, &output_size, &has_size));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias(ctx, out, repeats, NULL, NULL));
  K_CHECK(k_has_data(ctx, repeats, "repeats"));
  if (repeats->dtype != PTE_INT64 && repeats->dtype != PTE_INT32)
    return K_FAIL("repeats has to be an int32 or int64 tensor, not %s", pte_dtype_name(repeats->dtype));
  if (repeats->dim != 1) return K_FAIL("repeat_interleave only accepts a 1-D vector as repeats");
  K_CHECK(kc_same_dtype(ctx, out, repeats));
  int64_t n = repeats->sizes[0], total = 0, rs = repeats->strides[0];
  for (int64_t i = 0; i < n; i++) {
    int64_t r = k_get_i(repeats->data, repeats->dtype, i * rs);
    if (r < 0) return K_FAIL("repeats can not be negative");
    if (r > INT64_MAX - total) return K_FAIL("the output size overflows");
    total += r;
  }
  if (has_size && output_size != total)
    return K_FAIL("output_size %lld does not match the sum of repeats %lld", (long long)output_size,
                  (long long)total);
  K_CHECK(k_out(ctx, out, 1, &total));
  int64_t j = 0, os = out->strides[0];
  for (int64_t i = 0; i < n; i++) {
    int64_t r = k_get_i(repeats->data, repeats->dtype, i * rs);
    for (int64_t k = 0; k < r; k++, j++) k_set_i(out->data, out->dtype, j * os, i);
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(repeat_interleave_tensor_out, "aten::repeat_interleave.Tensor_out")
