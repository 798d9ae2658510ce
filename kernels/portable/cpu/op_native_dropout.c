/* aten::native_dropout.out(Tensor input, float p, bool? train, *, Tensor(a!) out0, Tensor(b!) out1)
 * As ExecuTorch's portable kernel defines it: training (train true or None)
 * with p > 0 keeps each element with probability 1 - p (mask true where a
 * uniform draw in [0, 1) is >= p) and writes the kept elements unscaled, 0
 * elsewhere (ATen scales by 1 / (1 - p); ExecuTorch's kernel does not);
 * otherwise out is the input and the mask all true. Floating dtypes; the
 * mask is bool. */
#include <stdatomic.h>
#include <string.h>

#include "util/kernel_util.h"

/* Draws come from one process-wide splitmix64 stream: each call takes its
 * own range of it (an atomic add), so concurrent methods never share draws
 * and execute stays free of allocation and I/O. */
static _Atomic uint64_t g_stream = 0x243f6a8885a308d3ull;

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static pte_status native_dropout_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *out, *mask;
  double p;
  bool train = true;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_double(ctx, args, 1, &p));
  if (!k_arg_none(args, nargs, 2)) K_CHECK(k_bool(ctx, args, 2, &train));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  K_CHECK(k_tensor(ctx, args, 4, &mask));
  K_CHECK(k_has_data(ctx, in, "input"));
  if (in->dtype != PTE_FLOAT32 && in->dtype != PTE_FLOAT64 && in->dtype != PTE_FLOAT16 &&
      in->dtype != PTE_BFLOAT16)
    return K_FAIL("dropout takes a floating tensor, got %s", pte_dtype_name(in->dtype));
  if (out->dtype != in->dtype)
    return K_FAIL("out dtype %s differs from the input's %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(in->dtype));
  if (mask->dtype != PTE_BOOL) return K_FAIL("mask dtype %s is not bool", pte_dtype_name(mask->dtype));
  if (!(p >= 0 && p <= 1)) return K_FAIL("dropout probability has to be between 0 and 1, got %g", p);
  if (!k_default_order(in) || !k_default_order(out) || !k_default_order(mask))
    return K_FAIL("dropout takes tensors in the default dim order");
  K_CHECK(k_out_like(ctx, out, in));
  K_CHECK(k_out_like(ctx, mask, in));
  K_CHECK(k_disjoint(ctx, mask, in, "input"));
  K_CHECK(k_disjoint(ctx, mask, out, "out0"));
  size_t n = (size_t)pte_tensor_numel(in), es = pte_dtype_size(in->dtype);
  if (!n) return PTE_OK;
  uint8_t *m = (uint8_t *)mask->data, *o = (uint8_t *)out->data;
  const uint8_t *x = (const uint8_t *)in->data;
  if (!train || p == 0) {
    if (o != x) memmove(o, x, n * es);
    memset(m, 1, n);
    return PTE_OK;
  }
  uint64_t s = atomic_fetch_add(&g_stream, (uint64_t)n * 0x9e3779b97f4a7c15ull);
  for (size_t i = 0; i < n; i++) {
    s += 0x9e3779b97f4a7c15ull;
    double u = (double)(mix64(s) >> 11) * 0x1.0p-53; /* [0, 1) */
    m[i] = u >= p;
    /* all-zero bits are +0 in every floating format */
    if (m[i]) memmove(o + i * es, x + i * es, es);
    else memset(o + i * es, 0, es);
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(native_dropout_out, "aten::native_dropout.out")
