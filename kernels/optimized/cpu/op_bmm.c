/* aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): float32 batched
 * products. Several products (attention heads) are cut into tasks, a
 * product or a band of its rows each, and the tasks spread evenly over the
 * pool, one serial product per task on the chunk's slice of scratch: one
 * pool round trip per call. Splitting each product over the pool instead
 * cost a round trip per head and left ViT's 3 heads of 197x197x64 on 2
 * threads (7 column panels, 4 + 3) as slow as on 1. A single product is
 * split over the pool. */
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
  size_t one = k_align64(k_sgemm_scratch(a->sizes[1], b->sizes[2], a->sizes[2]));
  return k_scratch_round(one * k_slots());
}

typedef struct bmm_job {
  const pte_tensor *a, *b, *out;
  float *scratch;
  size_t one;
  int64_t B, chunks;
  int64_t parts; /* row bands per product */
} bmm_job;

/* Rows [r0, r1) of product i. */
static void bmm_rows(const bmm_job *j, int64_t i, int64_t r0, int64_t r1, float *scratch, size_t bytes,
                     bool parallel) {
  const pte_tensor *a = j->a, *b = j->b, *out = j->out;
  k_sgemm_desc g = {.M = r1 - r0,
                    .N = b->sizes[2],
                    .K = a->sizes[2],
                    .a = (const float *)a->data + i * a->strides[0] + r0 * a->strides[1],
                    .sa0 = a->strides[1],
                    .sa1 = a->strides[2],
                    .b = (const float *)b->data + i * b->strides[0],
                    .sb0 = b->strides[1],
                    .sb1 = b->strides[2],
                    .c = (float *)out->data + i * out->strides[0] + r0 * out->strides[1],
                    .sc0 = out->strides[1],
                    .alpha = 1.0f,
                    .scratch = scratch,
                    .scratch_bytes = bytes,
                    .parallel = parallel};
  k_sgemm(&g);
}

/* Band p of `parts` of M rows, in whole 8-row tiles. */
static int64_t band_start(int64_t M, int64_t p, int64_t parts) {
  int64_t tiles = (M + 7) / 8, r = p * tiles / parts * 8;
  return r < M ? r : M;
}

static void bmm_chunk(void *ctx, size_t c0, size_t c1) {
  const bmm_job *j = ctx;
  const int64_t M = j->a->sizes[1], tasks = j->B * j->parts;
  for (size_t c = c0; c < c1; c++) {
    int64_t t0 = (int64_t)c * tasks / j->chunks, t1 = ((int64_t)c + 1) * tasks / j->chunks;
    for (int64_t t = t0; t < t1; t++) {
      int64_t i = t / j->parts, p = t % j->parts;
      int64_t r0 = band_start(M, p, j->parts), r1 = band_start(M, p + 1, j->parts);
      if (r0 < r1) bmm_rows(j, i, r0, r1, j->scratch + c * (j->one / sizeof(float)), j->one, false);
    }
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
  bmm_job j = {a, b, out, k_scratch(ctx, &bytes), 0, sizes[0], 1, 1};
  j.one = k_align64(k_sgemm_scratch(sizes[1], sizes[2], a->sizes[2]));
  if (bytes < j.one) return K_FAIL("scratch memory too small");
  double per = (double)sizes[1] * (double)sizes[2] * (double)a->sizes[2];
  int64_t slots = 1;
  if (j.B > 1 && per * (double)j.B >= K_PAR_MIN_FLOPS) {
    slots = (int64_t)(bytes / j.one);
    if (slots > (int64_t)k_slots()) slots = (int64_t)k_slots();
  }
  if (slots > 1) {
    /* Products that do not divide evenly over the slots (3 heads on 2
     * threads) are cut into `slots` row bands each, bands of 16 rows at
     * least; many products (4 per slot) balance well enough whole. */
    if (j.B % slots != 0 && j.B < 4 * slots) {
      int64_t most = (sizes[1] + 15) / 16;
      j.parts = slots < most ? slots : most;
    }
    int64_t tasks = j.B * j.parts;
    j.chunks = tasks < slots ? tasks : slots;
    k_parallel_chunks((size_t)j.chunks, bmm_chunk, &j);
  } else {
    for (int64_t i = 0; i < j.B; i++) bmm_rows(&j, i, 0, sizes[1], j.scratch, bytes, true);
  }
  return PTE_OK;
}

PTE_OPT_KERNEL(bmm_out, "aten::bmm.out", bmm_accepts, bmm_scratch)
