/* Hostile XNNPACK payloads: the real payloads of the given programs, cut
 * and corrupted, must be refused with an error (or, for harmless changes,
 * accepted and run), never crash or read out of bounds. Run it under
 * -DPTERUN_SANITIZE=address,undefined.
 *
 * The test registers its own "XnnpackBackend" whose init receives each
 * delegate payload of a program (and the named data of that program, for
 * the weights) and attacks it through the delegate's internal API.
 *   test_xnnpack_hostile DIR...   (directories searched for model.pte) */
#define _POSIX_C_SOURCE 200809L
#include <pterun/kernels_portable.h>
#include <pterun/runtime.h>

#include <stdlib.h>
#include <string.h>

#include "xnn_delegate.h"
#include "xnn_schema.h"
#include "xnn_test_util.h"

static int payloads, attempts, refused, accepted, ran;

/* ---- running an accepted delegate on zero inputs ---- */

#define MAX_RUN_BYTES ((size_t)64 << 20)

static void run_zero(xg_delegate *d) {
  const xg_graph *g = xg_delegate_graph(d);
  uint32_t n = g->num_externs;
  pte_value *vals = (pte_value *)calloc(n + 1, sizeof(pte_value));
  pte_value **args = (pte_value **)calloc(n + 1, sizeof(pte_value *));
  pte_tensor *ts = (pte_tensor *)calloc(n + 1, sizeof(pte_tensor));
  void **data = (void **)calloc(n + 1, sizeof(void *));
  size_t total = 0;
  bool ok = vals && args && ts && data;
  for (uint32_t e = 0; ok && e < n; e++) {
    args[e] = &vals[e];
    vals[e].tag = PTE_TAG_TENSOR;
    vals[e].u.tensor = &ts[e];
    uint32_t vi = XG_NONE;
    for (uint32_t k = 0; k < g->nvalues; k++)
      if (g->values[k].flags && g->values[k].external_id == e) vi = k;
    int64_t sizes[XG_MAX_DIMS] = {1};
    int32_t dim = 1;
    size_t bytes = 4;
    if (vi != XG_NONE) {
      const xg_value *v = &g->values[vi];
      dim = v->ndims;
      for (uint32_t i = 0; i < v->ndims; i++) sizes[i] = (int64_t)v->dims[i];
      bytes = v->nbytes * 2; /* room for int64 argmax indices */
    }
    total += bytes;
    if (total > MAX_RUN_BYTES) {
      ok = false;
      break;
    }
    data[e] = calloc(1, bytes + 64);
    if (!data[e]) {
      ok = false;
      break;
    }
    pte_tensor_init(&ts[e], PTE_FLOAT32, dim, sizes, data[e]);
  }
  if (ok) {
    ran++;
    (void)xg_delegate_run(d, args, (int32_t)n, NULL, NULL); /* any status; no crash */
  }
  for (uint32_t e = 0; data && e < n; e++) free(data[e]);
  free(vals), free(args), free(ts), free(data);
}

/* ---- one attempt ---- */

typedef struct target {
  pte_backend_init_ctx *ctx;
} target;

static pte_status named(void *user, const char *key, const void **data, size_t *size) {
  return pte_backend_named_data(((target *)user)->ctx, key, data, size);
}

/* Build (and if accepted, run) a delegate from a private copy of exactly
 * `size` bytes, so reading past the end is caught by the sanitizer. */
static bool verbose;

static pte_status attempt(target *t, const uint8_t *bytes, size_t size, bool run) {
  attempts++;
  if (verbose) printf("payload %d attempt %d: %zu bytes\n", payloads, attempts, size);
  uint8_t *copy = (uint8_t *)malloc(size ? size : 1);
  memcpy(copy, bytes, size);
  if (verbose) {
    FILE *f = fopen("/tmp/xnnpack_last_attempt.bin", "wb");
    if (f) fwrite(copy, 1, size, f), fclose(f);
  }
  xg_mem mem = {NULL, NULL, 0};
  xg_delegate *d = NULL;
  xg_options opts = {false, NULL, (size_t)256 << 20, false, false};
  pte_error(PTE_OK, "%s", "");
  pte_status st = xg_delegate_create(copy, size, named, t, &mem, &opts, &d);
  if (st) {
    refused++;
    XT_CHECK(pte_last_error()[0] != 0, "status %s without a message", pte_status_name(st));
  } else {
    accepted++;
    if (run) run_zero(d);
    xg_delegate_destroy(d);
  }
  xg_mem_release(&mem);
  free(copy);
  return st;
}

static void must_refuse(target *t, const uint8_t *bytes, size_t size, const char *what) {
  if (verbose) printf("  %s\n", what);
  pte_status st = attempt(t, bytes, size, true);
  XT_CHECK(st != PTE_OK, "payload %d: %s was accepted", payloads, what);
}

/* ---- locating fields of the graph flatbuffer ---- */

typedef struct layout {
  size_t fb_off, fb_size; /* flatbuffer within the payload */
  pte_fb fb;
  uint32_t root;
} layout;

static bool find_layout(const uint8_t *p, size_t size, layout *L) {
  if (size < 30 || memcmp(p + 4, "XH00", 4) != 0) return false;
  L->fb_off = pte_fb_u32(p + 10);
  L->fb_size = pte_fb_u32(p + 14);
  L->fb.buf = p + L->fb_off;
  L->fb.size = L->fb_size;
  L->root = pte_fb_root(L->fb);
  return true;
}

static void put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* Copy with the u32 at absolute payload offset `at` replaced. */
static void patch_and_refuse(target *t, const uint8_t *p, size_t size, size_t at, uint32_t v,
                             const char *what) {
  uint8_t *c = (uint8_t *)malloc(size);
  memcpy(c, p, size);
  put32(c + at, v);
  must_refuse(t, c, size, what);
  free(c);
}

/* As patch_and_refuse, and the error must say `why` (a clear message). */
static void patch_and_explain(target *t, const uint8_t *p, size_t size, size_t at, uint32_t v,
                              const char *what, const char *why) {
  patch_and_refuse(t, p, size, at, v, what);
  XT_CHECK(strstr(pte_last_error(), why) != NULL, "payload %d: %s: error '%s' does not say '%s'", payloads,
           what, pte_last_error(), why);
}

/* Quantization parameters: zero, negative, NaN and infinite scales, zero
 * points out of range, channel dims past the rank, scale counts that do not
 * match the shape, scale buffers past the constants, groups that do not
 * divide, wrong member types. */
static void attack_quant(target *t, const uint8_t *p, size_t size, size_t base, pte_fb fb, uint32_t qv) {
  uint32_t qp = pte_fb_ref(fb, qv, QTV_QUANT_PARAMS);
  uint32_t qt = (uint32_t)pte_fb_scalar(fb, qv, QTV_QUANT_PARAMS_TYPE, 1, 0);
  uint32_t at;
  if (!qp) return;
  const uint32_t bad_scales[] = {0, 0x80000000u /* -0 */, 0xBF800000u /* -1 */, 0x7FC00000u /* NaN */,
                                 0x7F800000u /* inf */};
  if (qt == XG_QP_PER_TENSOR) {
    if ((at = pte_fb_field(fb, qp, PTQ_SCALE)))
      for (size_t k = 0; k < sizeof bad_scales / sizeof bad_scales[0]; k++)
        patch_and_explain(t, p, size, base + at, bad_scales[k], "a bad per-tensor scale",
                          "must be finite and positive");
    if ((at = pte_fb_field(fb, qp, PTQ_ZERO_POINT))) {
      patch_and_explain(t, p, size, base + at, 256, "a zero point out of range", "zero point 256 is outside");
      patch_and_refuse(t, p, size, base + at, (uint32_t)-129, "a zero point out of range");
    }
  } else if (qt == XG_QP_PER_CHANNEL || qt == XG_QP_PER_CHANNEL_GROUP) {
    bool g = qt == XG_QP_PER_CHANNEL_GROUP;
    if ((at = pte_fb_field(fb, qp, g ? PCGQ_CHANNEL_DIM : PCQ_CHANNEL_DIM)))
      patch_and_explain(t, p, size, base + at, 7, "a channel dim past the rank", "channel_dim 7 is outside");
    if ((at = pte_fb_field(fb, qp, g ? PCGQ_NUM_SCALES : PCQ_NUM_SCALES))) {
      uint32_t n = pte_fb_u32(fb.buf + at);
      patch_and_explain(t, p, size, base + at, n + 1, "one scale too many", "scales");
      patch_and_refuse(t, p, size, base + at, n - 1, "one scale too few");
    }
    if ((at = pte_fb_field(fb, qp, g ? PCGQ_SCALE_BUFFER_IDX : PCQ_SCALE_BUFFER_IDX)))
      patch_and_refuse(t, p, size, base + at, 99999, "a scale buffer past the constants");
    if (g && (at = pte_fb_field(fb, qp, PCGQ_GROUP_SIZE))) {
      patch_and_explain(t, p, size, base + at, 0, "a zero group size", "does not divide");
      patch_and_refuse(t, p, size, base + at, pte_fb_u32(fb.buf + at) + 1,
                       "a group size that does not divide");
    }
  }
  /* Another member than the datatype needs (the table is reread as it). */
  if ((at = pte_fb_field(fb, qv, QTV_QUANT_PARAMS_TYPE))) {
    uint8_t *c = (uint8_t *)malloc(size);
    for (uint8_t m = 1; m <= 4; m++) {
      if (m == qt) continue;
      memcpy(c, p, size);
      c[base + at] = m;
      attempt(t, c, size, true); /* refused or not: never a crash */
    }
    free(c);
  }
}

static void attack(target *t, const uint8_t *p, size_t size) {
  payloads++;
  /* The payload itself is fine (or refused as unsupported: fp16, int8). */
  pte_status st0 = attempt(t, p, size, true);
  XT_CHECK(st0 == PTE_OK || st0 == PTE_ERR_NOT_SUPPORTED, "payload %d is refused: %s", payloads,
           pte_last_error());

  /* Truncated at many offsets: every one for small payloads. */
  size_t step = size <= 4096 ? 1 : size / 1500;
  for (size_t n = 0; n < size; n += step) must_refuse(t, p, n, "a truncated payload");
  must_refuse(t, p, size - 1, "a payload one byte short");

  layout L;
  if (!find_layout(p, size, &L)) return;

  /* Header offsets and sizes. */
  struct {
    size_t at;
    uint32_t v;
    const char *what;
  } hdr[] = {
      {4, 0x30304858u ^ 1u, "a bad magic with a flatbuffer of no identifier"},
      {10, 0, "flatbuffer offset 0"},
      {10, 29, "flatbuffer offset inside the header"},
      {10, (uint32_t)size, "flatbuffer offset at the end"},
      {10, 0xFFFFFFF0u, "a huge flatbuffer offset"},
      {14, 0, "flatbuffer size 0"},
      {14, 7, "flatbuffer size 7"},
      {14, (uint32_t)size, "a flatbuffer size past the end"},
      {14, 0xFFFFFFFFu, "a huge flatbuffer size"},
      {18, (uint32_t)(L.fb_off + L.fb_size - 1), "constants overlapping the flatbuffer"},
      {18, 0xFFFFFFF0u, "a huge constant offset"},
      {22, 0xFFFFFFFFu, "a huge constant size"},
      {26, 1, "a constant size beyond 4 GiB"},
  };
  for (size_t i = 0; i < sizeof hdr / sizeof hdr[0]; i++)
    patch_and_refuse(t, p, size, hdr[i].at, hdr[i].v, hdr[i].what);
  {
    uint8_t *c = (uint8_t *)malloc(size);
    memcpy(c, p, size);
    c[8] = 10, c[9] = 0; /* header length below 30 */
    must_refuse(t, c, size, "a short header length");
    memcpy(c, p, size);
    memcpy(c + L.fb_off + 4, "XN99", 4);
    must_refuse(t, c, size, "a bad flatbuffer identifier");
    free(c);
  }

  const pte_fb fb = L.fb;
  const size_t base = L.fb_off;
  /* num_externs out of range. */
  uint32_t f = pte_fb_field(fb, L.root, XGRAPH_NUM_EXTERNS);
  if (f) patch_and_refuse(t, p, size, base + f, 100000, "num_externs 100000");

  /* Nodes: bad union tags, ids that name no value. */
  uint32_t nodes = pte_fb_ref(fb, L.root, XGRAPH_XNODES);
  uint32_t nvalues = pte_fb_vec_len(fb, pte_fb_ref(fb, L.root, XGRAPH_XVALUES));
  for (uint32_t i = 0; i < pte_fb_vec_len(fb, nodes) && i < 40; i++) {
    uint32_t node = pte_fb_vec_table(fb, nodes, i);
    uint32_t tf = pte_fb_field(fb, node, XNODE_UNION_TYPE);
    if (tf) {
      uint8_t tags[] = {0, XG_NODE_TYPE_END, 200, 255};
      for (size_t k = 0; k < sizeof tags; k++) {
        uint8_t *c = (uint8_t *)malloc(size);
        memcpy(c, p, size);
        c[base + tf] = tags[k];
        must_refuse(t, c, size, "a bad node union tag");
        free(c);
      }
    }
    uint32_t u = pte_fb_ref(fb, node, XNODE_UNION);
    int type = (int)pte_fb_scalar(fb, node, XNODE_UNION_TYPE, 1, 0);
    /* Every present u32 field of the node table whose name ends in _id. */
    const pte_fb_table *nt =
        xg_schema_graph.fields[XGRAPH_XNODES].table->fields[XNODE_UNION].members[type - 1];
    for (int s = 0; s < nt->num_fields; s++) {
      const char *name = nt->fields[s].name;
      size_t len = strlen(name);
      if (len < 3 || strcmp(name + len - 3, "_id") != 0) continue;
      uint32_t at = pte_fb_field(fb, u, s);
      if (!at) continue;
      uint32_t cur = pte_fb_u32(fb.buf + at);
      if (cur == XG_NONE) continue; /* an absent optional input */
      patch_and_refuse(t, p, size, base + at, 0xFFFFFFF0u, "a node id naming no value");
      patch_and_refuse(t, p, size, base + at, nvalues + 1000, "a node id past the values");
    }
  }

  /* Values: huge, zero and inconsistent dims, unknown flags, external ids
   * and constant indices out of range, non-fp32 datatypes. */
  uint32_t values = pte_fb_ref(fb, L.root, XGRAPH_XVALUES);
  for (uint32_t i = 0; i < nvalues && i < 40; i++) {
    uint32_t xv = pte_fb_vec_table(fb, values, i);
    uint32_t v = pte_fb_ref(fb, xv, XVALUE_UNION);
    if (!v) continue;
    if (pte_fb_scalar(fb, xv, XVALUE_UNION_TYPE, 1, 0) == XG_VALUE_QUANTIZED) {
      attack_quant(t, p, size, base, fb, v);
      v = pte_fb_ref(fb, v, QTV_TENSOR_VALUE);
      if (!v) continue;
    }
    uint32_t dims = pte_fb_ref(fb, v, TV_DIMS);
    if (pte_fb_vec_len(fb, dims)) {
      size_t at = base + (size_t)(pte_fb_vec_data(fb, dims) - fb.buf);
      patch_and_refuse(t, p, size, at, 0xFFFFFFFFu, "a huge dimension");
      patch_and_refuse(t, p, size, at, 0, "a zero dimension");
      patch_and_refuse(t, p, size, at, 0x40000000u, "a dimension that breaks the shapes");
    }
    uint32_t nd = pte_fb_field(fb, v, TV_NUM_DIMS);
    if (nd)
      patch_and_refuse(t, p, size, base + nd, pte_fb_u32(fb.buf + nd) + 1, "num_dims not matching dims");
    uint32_t fl = pte_fb_field(fb, v, TV_FLAGS);
    if (fl) {
      patch_and_refuse(t, p, size, base + fl, 0x4, "unknown value flags");
      uint32_t ext = pte_fb_field(fb, v, TV_EXTERNAL_ID);
      if (ext) patch_and_refuse(t, p, size, base + ext, 5000, "an external id past num_externs");
    }
    uint32_t cb = pte_fb_field(fb, v, TV_CONSTANT_BUFFER_IDX);
    if (cb) patch_and_refuse(t, p, size, base + cb, 99999, "a constant index past the constants");
    uint32_t dt = pte_fb_field(fb, v, TV_DATATYPE);
    if (dt) {
      /* Any datatype but fp32 on a value a node uses must be refused. */
      int16_t types[] = {0, 2, 3, 9, 14, 99};
      for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        uint8_t *c = (uint8_t *)malloc(size);
        memcpy(c, p, size);
        c[base + dt] = (uint8_t)types[k];
        c[base + dt + 1] = (uint8_t)((uint16_t)types[k] >> 8);
        attempt(t, c, size, true); /* refused unless the value is unused */
        free(c);
      }
    }
  }

  /* Random corruption: any outcome but a crash; accepted graphs are run. */
  uint64_t seed = 0x9E3779B97F4A7C15ull ^ size;
  uint8_t *c = (uint8_t *)malloc(size);
  for (int r = 0; r < 300; r++) {
    memcpy(c, p, size);
    int flips = 1 + r % 4;
    for (int k = 0; k < flips; k++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      size_t at = (size_t)(seed >> 33) % size;
      /* Mostly in the flatbuffer, where the structure is. */
      if (r % 3 && L.fb_size) at = L.fb_off + at % L.fb_size;
      c[at] ^= (uint8_t)(1u << ((seed >> 20) & 7));
    }
    attempt(t, c, size, true);
  }
  free(c);
}

/* ---- the stand-in backend ---- */

static pte_status spy_init(void *user, pte_backend_init_ctx *ctx, const void *processed, size_t size,
                           const pte_compile_spec *specs, int32_t nspecs, void **handle) {
  (void)user, (void)specs, (void)nspecs;
  target t = {ctx};
  attack(&t, (const uint8_t *)processed, size);
  *handle = NULL;
  return PTE_OK;
}

static pte_status spy_execute(void *user, pte_backend_exec_ctx *ctx, void *h, pte_value **args,
                              int32_t nargs) {
  (void)user, (void)ctx, (void)h, (void)args, (void)nargs;
  return PTE_ERR_NOT_SUPPORTED;
}

static const pte_backend spy = PTE_BACKEND_INIT("XnnpackBackend", NULL, NULL, spy_init, spy_execute, NULL);

static void attacked(const char *dir, bool loaded) {
  static int before;
  if (loaded) printf("%s: %d payload(s) attacked\n", dir, payloads - before);
  before = payloads;
}

int main(int argc, char **argv) {
  verbose = getenv("XT_VERBOSE") != NULL;
  if (verbose) setvbuf(stdout, NULL, _IONBF, 0);
  if (pte_kernels_portable_register() || pte_register_backend(&spy)) {
    fprintf(stderr, "%s\n", pte_last_error());
    return 1;
  }
  xt_init_delegates(argc - 1, argv + 1, attacked);
  printf("%d payload(s), %d attempt(s): %d refused, %d accepted (%d run); %d check(s) failed\n", payloads,
         attempts, refused, accepted, ran, xt_failures);
  XT_CHECK(payloads > 0, "no payload found");
  return xt_failures ? 1 : 0;
}
