/* aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): float32 batched
 * products. Small matrices (attention heads) are spread over the pool a
 * batch per chunk, each chunk with its own slice of scratch; large ones run
 * one after the other, each split over the pool. */
#include "util/opt_util.h"

static bool bmm_accepts(pte_value *const *args, int32_t nargs) {
  if (nargs != 4) return false; /* the out tensor comes back as a last argument */
  for (int32_t i = 0; i < 3; i++)
    if (!k_arg_f32(args, nargs, i)) return false;
  return args[0]->u.tensor->dim == 3 && args[1]->u.tensor->dim == 3;
}

static size_t bmm_scratch(pte_value *const *args, int32_t nargs) {
  const pte_tensor *a = args[0]->u.tensor, *b = args[1]->u.tensor;
  (void)nargs;
  size_t one = (k_sgemm_scratch(a->sizes[1], b->sizes[2], a->sizes[2]) + 63) & ~(size_t)63;
  return k_scratch_round(one * k_slots());
}

typedef struct bmm_job {
  const pte_tensor *a, *b, *out;
  float *scratch;
  size_t one;
  int64_t B, chunks;
} bmm_job;

static void bmm_batch(const bmm_job *j, int64_t i, float *scratch, size_t bytes, bool parallel) {
  const pte_tensor *a = j->a, *b = j->b, *out = j->out;
  k_sgemm_desc g = {.M = a->sizes[1],
                    .N = b->sizes[2],
                    .K = a->sizes[2],
                    .a = (const float *)a->data + i * a->strides[0],
                    .sa0 = a->strides[1],
                    .sa1 = a->strides[2],
                    .b = (const float *)b->data + i * b->strides[0],
                    .sb0 = b->strides[1],
                    .sb1 = b->strides[2],
                    .c = (float *)out->data + i * out->strides[0],
                    .sc0 = out->strides[1],
                    .alpha = 1.0f,
                    .scratch = scratch,
                    .scratch_bytes = bytes,
                    .parallel = parallel};
  k_sgemm(&g);
}

static void bmm_chunk(void *ctx, size_t c0, size_t c1) {
  const bmm_job *j = ctx;
  for (size_t c = c0; c < c1; c++) {
    int64_t i0 = (int64_t)c * j->B / j->chunks, i1 = ((int64_t)c + 1) * j->B / j->chunks;
    for (int64_t i = i0; i < i1; i++)
      bmm_batch(j, i, j->scratch + c * (j->one / sizeof(float)), j->one, false);
  }
}

static pte_status bmm_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *a = args[0]->u.tensor, *b = args[1]->u.tensor;
  pte_tensor *out = args[2]->u.tensor;
  if (a->sizes[0] != b->sizes[0] || a->sizes[2] != b->sizes[1])
    return K_FAIL("self and mat2 cannot be multiplied batch by batch");
  int64_t sizes[3] = {a->sizes[0], a->sizes[1], b->sizes[2]};
  K_CHECK(k_out(ctx, out, 3, sizes));
  size_t bytes;
  bmm_job j = {a, b, out, k_scratch(ctx, &bytes), 0, sizes[0], 1};
  j.one = (k_sgemm_scratch(sizes[1], sizes[2], a->sizes[2]) + 63) & ~(size_t)63;
  if (bytes < j.one) return K_FAIL("scratch memory too small");
  double per = (double)sizes[1] * (double)sizes[2] * (double)a->sizes[2];
  int64_t slots = 1;
  if (per < K_PAR_MIN_FLOPS && j.B > 1 && per * (double)j.B >= K_PAR_MIN_FLOPS) {
    slots = (int64_t)(bytes / j.one);
    if (slots > (int64_t)k_slots()) slots = (int64_t)k_slots();
  }
  if (slots > 1) {
    j.chunks = j.B < slots ? j.B : slots;
    k_parallel_chunks((size_t)j.chunks, bmm_chunk, &j);
  } else {
    for (int64_t i = 0; i < j.B; i++) bmm_batch(&j, i, j.scratch, bytes, true);
  }
  return PTE_OK;
}

PTE_OPT_KERNEL(bmm_out, "aten::bmm.out", bmm_accepts, bmm_scratch)
