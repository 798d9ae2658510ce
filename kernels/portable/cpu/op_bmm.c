/* aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): out[i] = self[i] @ mat2[i] */
#include "util/kernel_util.h"

#include "util/matmul.h"

/* Complex batches: each product's sum of (a + bi)(c + di) terms in double
 * (float parts round once), in the order of the inner dim. */
static void bmm_complex(const pte_tensor *a, const pte_tensor *b, pte_tensor *out) {
  int32_t part = k_complex_part(out->dtype);
  const int64_t *as = a->strides, *bs = b->strides, *os = out->strides;
  for (int64_t n = 0; n < out->sizes[0]; n++)
    for (int64_t i = 0; i < out->sizes[1]; i++)
      for (int64_t j = 0; j < out->sizes[2]; j++) {
        double re = 0, im = 0;
        for (int64_t k = 0; k < a->sizes[2]; k++) {
          int64_t ia = 2 * (n * as[0] + i * as[1] + k * as[2]), ib = 2 * (n * bs[0] + k * bs[1] + j * bs[2]);
          double ar = k_get_d(a->data, part, ia), ai = k_get_d(a->data, part, ia + 1);
          double br = k_get_d(b->data, part, ib), bi = k_get_d(b->data, part, ib + 1);
          re += ar * br - ai * bi;
          im += ar * bi + ai * br;
        }
        int64_t io = 2 * (n * os[0] + i * os[1] + j * os[2]);
        k_set_d(out->data, part, io, re);
        k_set_d(out->data, part, io + 1, im);
      }
}

static pte_status bmm_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *a, *b, *out;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &a));
  K_CHECK(k_tensor(ctx, args, 1, &b));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  if (a->dim != 3 || b->dim != 3) return K_FAIL("self and mat2 must be 3-D");
  if (a->sizes[0] != b->sizes[0] || a->sizes[2] != b->sizes[1])
    return K_FAIL("batch matrices [%lld, %lld, %lld] and [%lld, %lld, %lld] cannot be multiplied",
                  (long long)a->sizes[0], (long long)a->sizes[1], (long long)a->sizes[2],
                  (long long)b->sizes[0], (long long)b->sizes[1], (long long)b->sizes[2]);
  if (a->dtype != b->dtype || out->dtype != a->dtype)
    return K_FAIL("dtypes must match (self %s, mat2 %s, out %s)", pte_dtype_name(a->dtype),
                  pte_dtype_name(b->dtype), pte_dtype_name(out->dtype));
  bool complex = k_is_complex(a->dtype);
  if (!complex && (!k_is_supported(a->dtype) || a->dtype == PTE_BOOL))
    return K_FAIL("matrix products are not supported for %s", pte_dtype_name(a->dtype));
  int64_t sizes[3] = {a->sizes[0], a->sizes[1], b->sizes[2]};
  K_CHECK(k_has_data(ctx, a, "self"));
  K_CHECK(k_has_data(ctx, b, "mat2"));
  K_CHECK(k_out(ctx, out, 3, sizes));
  size_t es = pte_dtype_size(a->dtype);
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  if (complex) { /* an empty inner dim never reads a or b: the products are zero */
    bmm_complex(a, b, out);
    return PTE_OK;
  }
  if (!a->data || !b->data) { /* an empty inner dim: the products are zero */
    for (int64_t i = 0; i < pte_tensor_numel(out); i++)
      k_set_d(out->data, out->dtype, k_offset(3, out->sizes, out->strides, i), 0);
    return PTE_OK;
  }
  for (int64_t i = 0; i < sizes[0]; i++) {
    const uint8_t *pa = (const uint8_t *)a->data + (size_t)(i * a->strides[0]) * es;
    const uint8_t *pb = (const uint8_t *)b->data + (size_t)(i * b->strides[0]) * es;
    uint8_t *pc = (uint8_t *)out->data + (size_t)(i * out->strides[0]) * es;
    k_gemm(a->dtype, sizes[1], sizes[2], a->sizes[2], pa, a->strides[1], a->strides[2], pb, b->strides[1],
           b->strides[2], pc, out->strides[1], out->strides[2], NULL, 0, 0, 1.0, 0.0);
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(bmm_out, "aten::bmm.out")
