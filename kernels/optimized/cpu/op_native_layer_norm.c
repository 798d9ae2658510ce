/* aten::native_layer_norm.out(Tensor input, SymInt[] normalized_shape,
 *     Tensor? weight, Tensor? bias, float eps, *, Tensor(a!) out0,
 *     Tensor(b!) out1, Tensor(c!) out2)
 * float32 over the trailing dims: per row mean and population variance
 * (lane sums in float, util/kern_impl.h), rstd = 1/sqrt(var + eps),
 * y = (x - mean) * rstd * w + b. out1/out2 get mean and rstd shaped like
 * the input with the normalized dims set to 1. Rows spread over the pool. */
#include <math.h>

#include "util/kern.h"

static bool ln_accepts(pte_value *const *args, int32_t nargs) {
  double d;
  int64_t shape[PTE_MAX_DIM];
  if (nargs != 9 || !k_arg_f32(args, nargs, 0) || !k_arg_f32(args, nargs, 5) || !k_arg_f32(args, nargs, 6) ||
      !k_arg_f32(args, nargs, 7) || !k_arg_num(args, nargs, 4, &d))
    return false;
  int32_t n = k_arg_ints(args, nargs, 1, shape, PTE_MAX_DIM);
  const pte_tensor *x = args[0]->u.tensor;
  if (n < 1 || n > x->dim) return false;
  int64_t numel = 1;
  for (int32_t i = 0; i < n; i++)
    if (shape[i] < 0 || __builtin_mul_overflow(numel, shape[i], &numel)) return false;
  for (int32_t i = 2; i <= 3; i++) {
    if (k_arg_none(args, nargs, i)) continue;
    const pte_tensor *t = k_arg_tensor(args, nargs, i);
    if (!k_is_f32(t) || pte_tensor_numel(t) != numel) return false;
  }
  return true;
}

typedef struct ln_job {
  const float *x, *w, *b;
  float *y, *mean, *rstd;
  int64_t N;
  float eps;
} ln_job;

static void ln_rows(void *ctx, size_t r0, size_t r1) {
  const ln_job *j = ctx;
  const o_kern_table *kt = o_kern();
  const int64_t N = j->N;
  for (size_t r = r0; r < r1; r++) {
    const float *x = j->x + (int64_t)r * N;
    float *y = j->y + (int64_t)r * N;
    float mean = kt->sum(x, N) / (float)N;
    float var = kt->sqdev(x, N, mean) / (float)N;
    float rstd = 1.0f / sqrtf(var + j->eps);
    if (j->w && j->b) {
      kt->norm_affine(x, y, N, mean, rstd, j->w, j->b);
    } else {
      for (int64_t i = 0; i < N; i++) {
        float v = (x[i] - mean) * rstd;
        if (j->w) v *= j->w[i];
        if (j->b) v += j->b[i];
        y[i] = v;
      }
    }
    j->mean[r] = mean;
    j->rstd[r] = rstd;
  }
}

static pte_status ln_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *x = args[0]->u.tensor;
  int64_t shape[PTE_MAX_DIM];
  int32_t n = k_arg_ints(args, nargs, 1, shape, PTE_MAX_DIM);
  double eps = 0;
  k_arg_num(args, nargs, 4, &eps);
  if (n < 1 || n > x->dim) return K_FAIL("normalized_shape does not fit the input");
  for (int32_t i = 0; i < n; i++)
    if (x->sizes[x->dim - n + i] != shape[i])
      return K_FAIL("normalized_shape does not match the input's trailing dims");
  int64_t N = 1, M = 1;
  for (int32_t i = 0; i < n; i++) N *= shape[i];
  for (int32_t i = 0; i < x->dim - n; i++) M *= x->sizes[i];
  const pte_tensor *w = args[2]->tag == PTE_TAG_TENSOR ? args[2]->u.tensor : NULL;
  const pte_tensor *b = args[3]->tag == PTE_TAG_TENSOR ? args[3]->u.tensor : NULL;
  if ((w && pte_tensor_numel(w) != N) || (b && pte_tensor_numel(b) != N))
    return K_FAIL("weight/bias do not match normalized_shape");
  int64_t stat[PTE_MAX_DIM];
  for (int32_t i = 0; i < x->dim; i++) stat[i] = i < x->dim - n ? x->sizes[i] : 1;
  K_CHECK(k_out_like(ctx, args[5]->u.tensor, x));
  K_CHECK(k_out(ctx, args[6]->u.tensor, x->dim, stat));
  K_CHECK(k_out(ctx, args[7]->u.tensor, x->dim, stat));
  if (M * N == 0) return PTE_OK;
  ln_job j = {x->data,
              w ? w->data : NULL,
              b ? b->data : NULL,
              args[5]->u.tensor->data,
              args[6]->u.tensor->data,
              args[7]->u.tensor->data,
              N,
              (float)eps};
  /* about eight operations an element over three passes (sum, squared
   * deviations, the affine); counted as four, GPT-2's 64 x 256 rows stayed
   * on one thread (10 us, nine a run) */
  k_parallel_for((size_t)M, (double)(M * N * 8), ln_rows, &j);
  return PTE_OK;
}

PTE_OPT_KERNEL(ln_out, "aten::native_layer_norm.out", ln_accepts, NULL)
