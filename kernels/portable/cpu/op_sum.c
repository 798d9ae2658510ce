/* aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *,
 *                       ScalarType? dtype=None, Tensor(a!) out) */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

/* Complex self into an out of its dtype (a wider complex out through
 * dtype= is refused, untested): each part summed in double, in reduction
 * order. */
static void sum_complex(const pte_tensor *self, const kr_plan *p, pte_tensor *out) {
  int32_t part = k_complex_part(self->dtype);
  for (int64_t o = 0; o < p->r.outer_numel; o++) {
    int64_t base = k_reduce_outer(&p->r, o);
    double re = 0, im = 0;
    for (int64_t k = 0; k < p->r.inner_numel; k++) {
      int64_t off = 2 * (base + k_reduce_inner(&p->r, k));
      re += k_get_d(self->data, part, off);
      im += k_get_d(self->data, part, off + 1);
    }
    int64_t dst = 2 * kr_offset(out, o);
    k_set_d(out->data, part, dst, re);
    k_set_d(out->data, part, dst + 1, im);
  }
}

static pte_status sum_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dims[PTE_MAX_DIM];
  int32_t ndims = 0, dtype = 0;
  bool keepdim = false, has_dtype = false;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_opt_int_list(ctx, args, 1, dims, PTE_MAX_DIM, &ndims));
  K_CHECK(k_bool(ctx, args, 2, &keepdim));
  K_CHECK(k_opt_dtype(ctx, args, 3, &dtype, &has_dtype));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  K_CHECK(k_has_data(ctx, self, "self"));
  bool complex = k_is_complex(self->dtype);
  if (!(complex || k_is_supported(self->dtype)) || !(complex || k_is_supported(out->dtype)))
    return K_FAIL("unsupported dtype %s -> %s", pte_dtype_name(self->dtype), pte_dtype_name(out->dtype));
  if (has_dtype && dtype != out->dtype)
    return K_FAIL("dtype argument %s does not match the output dtype %s", pte_dtype_name(dtype),
                  pte_dtype_name(out->dtype));
  if (complex && out->dtype != self->dtype)
    return K_FAIL("the sum of %s needs an output of that dtype, not %s", pte_dtype_name(self->dtype),
                  pte_dtype_name(out->dtype));
  kr_plan p;
  K_CHECK(kr_plan_init(ctx, &p, self, dims, ndims, keepdim)); /* None or [] reduces everything */
  K_CHECK(k_out(ctx, out, p.r.out_dim, p.r.out_sizes));
  if (complex) {
    sum_complex(self, &p, out);
    return PTE_OK;
  }
  /* Floats accumulate in double (at least as accurate as ATen's cascade sum);
   * integers in wrapping 64-bit arithmetic like ATen's int64 accumulator. */
  bool as_float = k_is_float(out->dtype) || k_is_float(self->dtype);
  _Alignas(16) uint8_t buf[KR_CHUNK * 8];
  kr_walk w;
  for (int64_t o = 0; o < p.r.outer_numel; o++) {
    kr_begin(&p, o, &w);
    int64_t dst = kr_offset(out, o), m;
    if (as_float) {
      const double *v = (const double *)buf;
      double acc = 0;
      while ((m = kr_next(&w, buf, K_F64)) > 0)
        for (int64_t j = 0; j < m; j++) acc += v[j];
      k_set_d(out->data, out->dtype, dst, acc);
    } else {
      const int64_t *v = (const int64_t *)buf;
      uint64_t acc = 0;
      while ((m = kr_next(&w, buf, K_I64)) > 0)
        for (int64_t j = 0; j < m; j++) acc += (uint64_t)v[j];
      k_set_i(out->data, out->dtype, dst, (int64_t)acc);
    }
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(sum_out, "aten::sum.IntList_out")
