/* llama::custom_sdpa.out(Tensor query, Tensor key, Tensor value,
 *     SymInt start_pos, Tensor? attn_mask, float drpout_p, bool is_causal,
 *     float? scale, *, Tensor(a!) out)
 * llama::sdpa_with_kv_cache.out(Tensor query, Tensor key, Tensor value,
 *     Tensor(a!) key_cache, Tensor(b!) value_cache, SymInt start_pos,
 *     SymInt seq_len, Tensor? attn_mask, float drpout_p, bool is_causal,
 *     float? scale, *, Tensor(c!) out)
 *
 * Layout (ExecuTorch's LLM exporters): query [B, S, H, D] holds positions
 * start_pos .. start_pos + S - 1; the caches [B, L, Hkv, D] hold every
 * position, head h reading kv head h / (H / Hkv). Without a mask the query
 * attends to the first start_pos + S keys (causal: query s to keys
 * 0 .. start_pos + s); with a mask [S, L] (added to the scores, and never
 * with is_causal) to all L keys. Scores are scaled by `scale`, else
 * 1/sqrt(D).
 *
 * Work is cut into tasks of up to ATTN_TILE query rows of one head; a task
 * computes its scores (the kernel layer's GEMM from 4 rows, dot products
 * below: decoding), a softmax per row, and the product with V. Tasks of
 * heads sharing a kv head are adjacent, so the cache rows stay in cache.
 * Chunks of tasks run on the pool, each with its own slot of scratch for the
 * scores. */
#include <math.h>

#include "llm_ops.h"

#define ATTN_TILE 32

typedef struct attn_job {
  const float *q, *k, *v, *mask;
  float *out;
  int64_t B, S, H, Hkv, D, L, nkeys, start_pos, ntiles;
  bool causal;
  float scale;
  float *scratch;
  int64_t ld; /* floats per scores row */
  size_t slot_floats, tasks, chunks;
  const llm_vec *vec;
} attn_job;

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Floats of one chunk's scores: `rows` rows of up to L keys, rows 64-byte aligned. */
static int64_t attn_ld(int64_t L) { return (L + 15) & ~(int64_t)15; }
static size_t attn_slot_floats(int64_t S, int64_t L) { return (size_t)(min64(S, ATTN_TILE) * attn_ld(L)); }

static void attn_task(const attn_job *j, size_t t, float *sc) {
  const int64_t tile = (int64_t)t % j->ntiles, h = ((int64_t)t / j->ntiles) % j->H,
                b = (int64_t)t / (j->ntiles * j->H);
  const int64_t hk = h / (j->H / j->Hkv), D = j->D, qs = j->H * D, ks = j->Hkv * D;
  const int64_t r0 = tile * ATTN_TILE, r1 = min64(j->S, r0 + ATTN_TILE), M = r1 - r0;
  const int64_t nk = j->causal ? j->start_pos + r1 : j->nkeys;
  const float *q = j->q + (b * j->S + r0) * qs + h * D;
  const float *k = j->k + b * j->L * ks + hk * D;
  const float *v = j->v + b * j->L * ks + hk * D;
  float *o = j->out + (b * j->S + r0) * qs + h * D;
  const int64_t ld = j->ld;
  const bool gemm = M >= 4 && nk >= 4;
  if (nk > 0 && gemm) {
    k_sgemm_desc g = {.M = M,
                      .N = nk,
                      .K = D,
                      .a = q,
                      .sa0 = qs,
                      .sa1 = 1,
                      .b = k,
                      .sb0 = 1,
                      .sb1 = ks,
                      .c = sc,
                      .sc0 = ld,
                      .sc1 = 1,
                      .alpha = j->scale};
    k_sgemm(&g);
  } else {
    for (int64_t i = 0; i < M; i++) {
      const int64_t lim = j->causal ? j->start_pos + r0 + i + 1 : nk;
      for (int64_t c = 0; c < lim; c++) sc[i * ld + c] = j->scale * j->vec->dot(q + i * qs, k + c * ks, D);
    }
  }
  for (int64_t i = 0; i < M; i++) {
    float *row = sc + i * ld;
    const int64_t lim = j->causal ? j->start_pos + r0 + i + 1 : nk;
    if (j->mask) {
      const float *m = j->mask + (r0 + i) * j->L;
      for (int64_t c = 0; c < lim; c++) row[c] += m[c];
    }
    float mx = -INFINITY;
    for (int64_t c = 0; c < lim; c++) mx = row[c] > mx ? row[c] : mx;
    if (mx == -INFINITY) {
      /* every key masked (or none): the row attends to nothing */
      for (int64_t c = 0; c < nk; c++) row[c] = 0;
      continue;
    }
    const float inv = 1.0f / k_vexp_sum(row, row, lim, mx);
    for (int64_t c = 0; c < lim; c++) row[c] *= inv;
    for (int64_t c = lim; c < nk; c++) row[c] = 0;
  }
  if (nk > 0 && gemm) {
    k_sgemm_desc g = {.M = M,
                      .N = D,
                      .K = nk,
                      .a = sc,
                      .sa0 = ld,
                      .sa1 = 1,
                      .b = v,
                      .sb0 = ks,
                      .sb1 = 1,
                      .c = o,
                      .sc0 = qs,
                      .sc1 = 1,
                      .alpha = 1.0f};
    k_sgemm(&g);
  } else {
    for (int64_t i = 0; i < M; i++) {
      float *orow = o + i * qs;
      const float *p = sc + i * ld;
      memset(orow, 0, (size_t)D * sizeof(float));
      const int64_t lim = j->causal ? j->start_pos + r0 + i + 1 : nk;
      for (int64_t c = 0; c < lim; c++)
        if (p[c] != 0) j->vec->axpy(orow, v + c * ks, p[c], D);
    }
  }
}

static void attn_chunk(void *ctx, size_t c, size_t c1) {
  const attn_job *j = ctx;
  for (; c < c1; c++) {
    float *sc = j->scratch + c * j->slot_floats;
    size_t t0 = j->tasks * c / j->chunks, t1 = j->tasks * (c + 1) / j->chunks;
    for (size_t t = t0; t < t1; t++) attn_task(j, t, sc);
  }
}

static bool f32_4d(pte_value *const *args, int32_t nargs, int32_t i) {
  return k_arg_f32(args, nargs, i) && args[i]->u.tensor->dim == 4;
}
static bool mask_ok(pte_value *const *args, int32_t nargs, int32_t i) {
  return k_arg_none(args, nargs, i) || (k_arg_f32(args, nargs, i) && args[i]->u.tensor->dim == 2);
}

/* Attention of q over caches k, v (validated here) into out. */
static pte_status attention(pte_kernel_ctx *ctx, const pte_tensor *q, const pte_tensor *k,
                            const pte_tensor *v, const pte_tensor *mask, int64_t start_pos, double dropout,
                            bool causal, bool has_scale, double scale, pte_tensor *out) {
  if (q->dim != 4 || k->dim != 4 || v->dim != 4)
    return K_FAIL("query, key and value must be 4-D [B, S, H, D]");
  const int64_t B = q->sizes[0], S = q->sizes[1], H = q->sizes[2], D = q->sizes[3];
  const int64_t L = k->sizes[1], Hkv = k->sizes[2];
  for (int32_t d = 0; d < 4; d++)
    if (k->sizes[d] != v->sizes[d]) return K_FAIL("key and value caches differ in shape");
  if (k->sizes[0] != B || k->sizes[3] != D)
    return K_FAIL("key cache batch or head dim differs from the query's");
  if (Hkv <= 0 || H % Hkv)
    return K_FAIL("query heads (%lld) must be a multiple of kv heads (%lld)", (long long)H, (long long)Hkv);
  if (dropout != 0.0) return K_FAIL("dropout (%g) is not supported at inference", dropout);
  if (start_pos < 0) return K_FAIL("start_pos %lld is negative", (long long)start_pos);
  if (mask) {
    if (causal) return K_FAIL("attn_mask and is_causal cannot both be set");
    if (mask->dim != 2 || mask->sizes[0] != S || mask->sizes[1] != L)
      return K_FAIL("attn_mask must be [%lld, %lld] (query length, cache length)", (long long)S,
                    (long long)L);
  } else if (S > L || start_pos > L - S) {
    return K_FAIL("start_pos %lld + query length %lld exceeds the cache length %lld", (long long)start_pos,
                  (long long)S, (long long)L);
  }
  K_CHECK(k_out(ctx, out, 4, q->sizes));
  K_CHECK(k_contiguous(ctx, q, "query"));
  K_CHECK(k_contiguous(ctx, k, "key"));
  K_CHECK(k_contiguous(ctx, v, "value"));
  K_CHECK(k_contiguous(ctx, out, "out"));
  K_CHECK(k_disjoint(ctx, out, q, "query"));
  K_CHECK(k_disjoint(ctx, out, k, "key"));
  K_CHECK(k_disjoint(ctx, out, v, "value"));
  if (mask) {
    K_CHECK(k_contiguous(ctx, mask, "attn_mask"));
    K_CHECK(k_disjoint(ctx, out, mask, "attn_mask"));
  }
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  attn_job j = {.q = q->data,
                .k = k->data,
                .v = v->data,
                .mask = mask ? mask->data : NULL,
                .out = out->data,
                .B = B,
                .S = S,
                .H = H,
                .Hkv = Hkv,
                .D = D,
                .L = L,
                .nkeys = mask ? L : start_pos + S,
                .start_pos = start_pos,
                .ntiles = (S + ATTN_TILE - 1) / ATTN_TILE,
                .causal = causal,
                .scale = has_scale ? (float)scale : (float)(1.0 / sqrt((double)D)),
                .ld = attn_ld(L),
                .slot_floats = attn_slot_floats(S, L),
                .vec = llm_vec_get()};
  size_t bytes;
  j.scratch = k_scratch(ctx, &bytes);
  size_t slots = j.slot_floats ? bytes / (j.slot_floats * sizeof(float)) : 0;
  if (slots == 0) return K_FAIL("scratch memory too small");
  j.tasks = (size_t)(B * H * j.ntiles);
  const double flops = 4.0 * (double)B * (double)H * (double)S * (double)j.nkeys * (double)D;
  size_t chunks = flops < K_PAR_MIN_FLOPS ? 1 : k_slots();
  if (chunks > slots) chunks = slots;
  if (chunks > j.tasks) chunks = j.tasks;
  j.chunks = chunks;
  k_parallel_chunks(chunks, attn_chunk, &j);
  return PTE_OK;
}

/* One scores slot per pool thread, for the shapes at their upper bounds. */
static size_t attn_scratch(const pte_tensor *q, const pte_tensor *k) {
  if (!q || !k || q->dim != 4 || k->dim != 4 || q->sizes[1] < 0 || k->sizes[1] < 0) return 0;
  /* beyond a million positions: no scratch, refused at run time (keeps a
   * hostile cache length from reserving gigabytes) */
  if (k->sizes[1] > ((int64_t)1 << 20)) return 0;
  return k_scratch_round(k_slots() * attn_slot_floats(q->sizes[1], k->sizes[1]) * sizeof(float));
}

/* ---- custom_sdpa ---- */

static bool custom_sdpa_accepts(pte_value *const *args, int32_t nargs) {
  return nargs == 10 && f32_4d(args, nargs, 0) && f32_4d(args, nargs, 1) && f32_4d(args, nargs, 2) &&
         mask_ok(args, nargs, 4) && k_arg_f32(args, nargs, 8);
}

static size_t custom_sdpa_scratch(pte_value *const *args, int32_t nargs) {
  return attn_scratch(k_arg_tensor(args, nargs, 0), k_arg_tensor(args, nargs, 1));
}

static pte_status custom_sdpa_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_nargs(ctx, nargs, 10));
  K_CHECK(k_args_have_data(ctx, args, nargs));
  pte_tensor *q, *k, *v, *mask, *out;
  int64_t start_pos;
  double dropout, scale = 0;
  bool causal, has_scale;
  K_CHECK(k_tensor(ctx, args, 0, &q));
  K_CHECK(k_tensor(ctx, args, 1, &k));
  K_CHECK(k_tensor(ctx, args, 2, &v));
  K_CHECK(k_int(ctx, args, 3, &start_pos));
  K_CHECK(k_opt_tensor(ctx, args, 4, &mask));
  K_CHECK(k_double(ctx, args, 5, &dropout));
  K_CHECK(k_bool(ctx, args, 6, &causal));
  K_CHECK(k_opt_double(ctx, args, 7, &scale, &has_scale));
  K_CHECK(k_tensor(ctx, args, 8, &out));
  return attention(ctx, q, k, v, mask, start_pos, dropout, causal, has_scale, scale, out);
}

/* ---- sdpa_with_kv_cache ---- */

pte_status llm_write_cache(pte_kernel_ctx *ctx, const pte_tensor *value, pte_tensor *cache,
                           int64_t start_pos);

static bool sdpa_kv_accepts(pte_value *const *args, int32_t nargs) {
  return nargs == 13 && f32_4d(args, nargs, 0) && f32_4d(args, nargs, 1) && f32_4d(args, nargs, 2) &&
         f32_4d(args, nargs, 3) && f32_4d(args, nargs, 4) && mask_ok(args, nargs, 7) &&
         k_arg_f32(args, nargs, 11);
}

static size_t sdpa_kv_scratch(pte_value *const *args, int32_t nargs) {
  return attn_scratch(k_arg_tensor(args, nargs, 0), k_arg_tensor(args, nargs, 3));
}

static pte_status sdpa_with_kv_cache_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_nargs(ctx, nargs, 13));
  K_CHECK(k_args_have_data(ctx, args, nargs));
  pte_tensor *q, *k, *v, *kc, *vc, *mask, *out;
  int64_t start_pos, seq_len;
  double dropout, scale = 0;
  bool causal, has_scale;
  K_CHECK(k_tensor(ctx, args, 0, &q));
  K_CHECK(k_tensor(ctx, args, 1, &k));
  K_CHECK(k_tensor(ctx, args, 2, &v));
  K_CHECK(k_tensor(ctx, args, 3, &kc));
  K_CHECK(k_tensor(ctx, args, 4, &vc));
  K_CHECK(k_int(ctx, args, 5, &start_pos));
  K_CHECK(k_int(ctx, args, 6, &seq_len));
  K_CHECK(k_opt_tensor(ctx, args, 7, &mask));
  K_CHECK(k_double(ctx, args, 8, &dropout));
  K_CHECK(k_bool(ctx, args, 9, &causal));
  K_CHECK(k_opt_double(ctx, args, 10, &scale, &has_scale));
  K_CHECK(k_tensor(ctx, args, 11, &out));
  if (q->dim != 4 || k->dim != 4 || v->dim != 4)
    return K_FAIL("query, key and value must be 4-D [B, S, H, D]");
  if (seq_len != q->sizes[1] || k->sizes[1] != seq_len || v->sizes[1] != seq_len)
    return K_FAIL("seq_len %lld differs from the query, key or value length", (long long)seq_len);
  if (kc == vc || k_overlap(kc, vc)) return K_FAIL("key_cache and value_cache must not share memory");
  K_CHECK(k_disjoint(ctx, out, kc, "key_cache"));
  K_CHECK(k_disjoint(ctx, out, vc, "value_cache"));
  K_CHECK(llm_write_cache(ctx, k, kc, start_pos));
  K_CHECK(llm_write_cache(ctx, v, vc, start_pos));
  return attention(ctx, q, kc, vc, mask, start_pos, dropout, causal, has_scale, scale, out);
}

PTE_LLM_KERNEL(custom_sdpa_out, "llama::custom_sdpa.out", custom_sdpa_accepts, custom_sdpa_scratch)
PTE_LLM_KERNEL(sdpa_with_kv_cache_out, "llama::sdpa_with_kv_cache.out", sdpa_kv_accepts, sdpa_kv_scratch)
