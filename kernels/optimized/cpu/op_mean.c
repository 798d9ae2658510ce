/* aten::mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
 *     Tensor(a!) out)
 * float32 means over trailing dims (global average pooling: dims [-1, -2]
 * of NCHW, or the last dim; RMSNorm's mean of squares): each row summed in
 * float in index order, then divided by the count, as ExecuTorch's kernel
 * does, so a quantized model's next convert sees its bits (the order of a
 * vectorized sum flips int8 steps there); eight rows at a time, one chain
 * each, hide the adds' latency. Rows over the pool. Other dim sets and
 * dtype conversions stay portable. */
#include "util/kern.h"

/* The reduced dims as a trailing block: first reduced dim, or -1. */
static int32_t trailing(pte_value *const *args, int32_t nargs, int32_t rank) {
  int64_t dims[PTE_MAX_DIM];
  int32_t n = k_arg_ints(args, nargs, 1, dims, PTE_MAX_DIM);
  if (n <= 0 || rank == 0) return -1;
  bool seen[PTE_MAX_DIM] = {false};
  for (int32_t i = 0; i < n; i++) {
    int32_t d = k_wrap_dim(dims[i], rank);
    if (d < 0 || seen[d]) return -1;
    seen[d] = true;
  }
  int32_t first = rank - n;
  for (int32_t d = first; d < rank; d++)
    if (!seen[d]) return -1;
  return first;
}

static bool mean_accepts(pte_value *const *args, int32_t nargs) {
  if (nargs != 6 || !k_arg_f32(args, nargs, 0) || !k_arg_f32(args, nargs, 4)) return false;
  if (!k_arg_tag(args, nargs, 2, PTE_TAG_BOOL) || !k_arg_none(args, nargs, 3)) return false;
  return trailing(args, nargs, args[0]->u.tensor->dim) >= 0;
}

typedef struct mean_job {
  const float *x;
  float *y;
  int64_t n;
} mean_job;

#define MEAN_CHAINS 8

static void mean_rows(void *ctx, size_t r0, size_t r1) {
  const mean_job *j = ctx;
  const int64_t n = j->n;
  const float count = (float)n;
  size_t r = r0;
  for (; r + MEAN_CHAINS <= r1; r += MEAN_CHAINS) {
    const float *x = j->x + (int64_t)r * n;
    float s[MEAN_CHAINS] = {0};
    for (int64_t k = 0; k < n; k++)
      for (int c = 0; c < MEAN_CHAINS; c++) s[c] += x[c * n + k];
    for (int c = 0; c < MEAN_CHAINS; c++) j->y[r + c] = s[c] / count;
  }
  for (; r < r1; r++) {
    const float *x = j->x + (int64_t)r * n;
    float s = 0.0f;
    for (int64_t k = 0; k < n; k++) s += x[k];
    j->y[r] = s / count;
  }
}

static pte_status mean_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *x = args[0]->u.tensor;
  int32_t first = trailing(args, nargs, x->dim);
  if (first < 0) return K_FAIL("dims must be valid and distinct");
  bool keep = args[2]->u.b;
  int64_t sizes[PTE_MAX_DIM], rows = 1, n = 1;
  int32_t od = 0;
  for (int32_t i = 0; i < x->dim; i++) {
    if (i < first) {
      sizes[od++] = x->sizes[i];
      rows *= x->sizes[i];
    } else {
      n *= x->sizes[i];
      if (keep) sizes[od++] = 1;
    }
  }
  K_CHECK(k_out(ctx, args[4]->u.tensor, od, sizes));
  float *y = args[4]->u.tensor->data;
  if (rows == 0) return PTE_OK;
  if (n == 0) {
    for (int64_t r = 0; r < rows; r++) y[r] = __builtin_nanf("");
    return PTE_OK;
  }
  mean_job j = {x->data, y, n};
  k_parallel_for((size_t)rows, (double)(rows * n), mean_rows, &j);
  return PTE_OK;
}

PTE_OPT_KERNEL(mean_out, "aten::mean.out", mean_accepts, NULL)
