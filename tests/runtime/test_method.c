/* Loading and running real exported programs from the zoo: metadata, inputs
 * checks, dynamic shapes, multiple methods, external weights, caller memory,
 * kernel selection. Links the runtime and the portable kernels. */
#define _DEFAULT_SOURCE /* mincore */
#include <pterun/kernels_portable.h>

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../cli/npy.h"
#include "../common/test_util.h"

static pte_program *load(const char *rel) {
  pte_program *p = NULL;
  if (pte_program_load_file(zoo_path(rel), NULL, &p)) {
    fprintf(stderr, "cannot load %s: %s\n", rel, pte_last_error());
    return NULL;
  }
  return p;
}

TEST(register_portable_kernels) {
  /* Explicit registration works for static builds; for shared builds the
   * library already registered itself and this is a no-op. */
  CHECK_OK(pte_kernels_portable_register());
  CHECK(pte_operator_registered("aten::addmm.out"), "portable kernels missing");
}

TEST(zoo_mlp_matches_eager) {
  char err[512];
  pte_status st = run_case(zoo_path("models/mlp"), "forward", NULL, 1e-4, 1e-5, err, sizeof err);
  CHECK(st == PTE_OK, "%s", err);
}

TEST(zoo_models_match_eager) {
  static const char *const cases[] = {"models/small_cnn", "models/mobilenet_v2_tiny", "models/resnet_tiny",
                                      "models/transformer_tiny", "models/add"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char err[512];
    pte_status st = run_case(zoo_path(cases[i]), "forward", NULL, 1e-4, 1e-5, err, sizeof err);
    CHECK(st == PTE_OK, "%s: %s", cases[i], err);
  }
}

TEST(metadata_without_loading) {
  pte_program *p = load("models/mlp/model.pte");
  CHECK(p, "load");
  CHECK(pte_program_method_count(p) == 1, "methods %d", (int)pte_program_method_count(p));
  CHECK(!strcmp(pte_program_method_name(p, 0), "forward"), "name");
  pte_method_info mi;
  CHECK_OK(pte_program_method_info(p, "forward", &mi));
  CHECK(mi.num_inputs == 1 && mi.num_outputs == 1, "io %d %d", (int)mi.num_inputs, (int)mi.num_outputs);
  CHECK(mi.num_instructions > 0 && mi.num_operators > 0, "instructions");
  CHECK(mi.num_planned_buffers >= 1 && mi.planned_bytes > 0, "planned");
  pte_io_info io;
  CHECK_OK(pte_program_method_input(p, "forward", 0, &io));
  CHECK(io.tag == PTE_TAG_TENSOR && io.dtype == PTE_FLOAT32 && io.dim >= 1, "input info");
  CHECK_FAILS(pte_program_method_input(p, "forward", 5, &io), PTE_ERR_INVALID_ARGUMENT, "out of range");
  CHECK_FAILS(pte_program_method_info(p, "nope", &mi), PTE_ERR_NOT_FOUND, "'nope'");
  bool has_addmm = false;
  for (int32_t i = 0; i < mi.num_operators; i++) {
    const char *n, *o;
    CHECK_OK(pte_program_method_operator(p, "forward", i, &n, &o));
    if (!strcmp(n, "aten::addmm") && !strcmp(o, "out")) has_addmm = true;
  }
  CHECK(has_addmm, "mlp should use aten::addmm.out");
  pte_program_free(p);
}

static pte_method *load_method(pte_program *p, const char *name) {
  pte_method *m = NULL;
  if (pte_method_load(p, name, NULL, &m)) fprintf(stderr, "method load: %s\n", pte_last_error());
  return m;
}

TEST(wrong_inputs_are_named) {
  pte_program *p = load("models/mlp/model.pte");
  CHECK(p, "load");
  pte_method *m = load_method(p, "forward");
  CHECK(m, "method");
  pte_io_info io;
  CHECK_OK(pte_program_method_input(p, "forward", 0, &io));
  float buf[4096] = {0};
  int64_t sizes[PTE_MAX_DIM];
  memcpy(sizes, io.sizes, sizeof sizes);
  sizes[io.dim - 1] += 1;
  pte_tensor t;
  CHECK_OK(pte_tensor_init(&t, PTE_FLOAT32, io.dim, sizes, buf));
  CHECK_FAILS(pte_method_set_input_tensor(m, 0, &t), PTE_ERR_INVALID_ARGUMENT, "input 0");
  char want[64];
  pte_shape_str(io.dim, io.sizes, want, sizeof want);
  CHECK(strstr(pte_last_error(), want), "message should name the expected shape %s: %s", want,
        pte_last_error());
  double dbuf[4096] = {0};
  CHECK_OK(pte_tensor_init(&t, PTE_FLOAT64, io.dim, io.sizes, dbuf));
  CHECK_FAILS(pte_method_set_input_tensor(m, 0, &t), PTE_ERR_INVALID_ARGUMENT, "float64");
  CHECK_FAILS(pte_method_set_input_tensor(m, 3, &t), PTE_ERR_INVALID_ARGUMENT, "out of range");
  CHECK_FAILS(pte_method_execute(m), PTE_ERR_INVALID_STATE, "input 0 is not set");
  pte_method_free(m);
  pte_program_free(p);
}

/* Zoo cases of method forward, each against its expected outputs. */
static void run_cases(const char *const *cases, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char err[512];
    CHECK(run_case(zoo_path(cases[i]), "forward", NULL, 1e-4, 1e-5, err, sizeof err) == PTE_OK, "%s: %s",
          cases[i], err);
  }
}

TEST(dynamic_batch_within_bounds) {
  static const char *const cases[] = {"models/dynamic_batch_b1", "models/dynamic_batch_b3",
                                      "models/dynamic_batch_b8"};
  run_cases(cases, 3);
  /* one method instance serves several batch sizes in turn */
  pte_program *p = load("models/dynamic_batch_b3/model.pte");
  CHECK(p, "load");
  pte_method *m = load_method(p, "forward");
  CHECK(m, "method");
  pte_io_info io;
  CHECK_OK(pte_program_method_input(p, "forward", 0, &io));
  CHECK(io.dynamism == PTE_SHAPE_DYNAMIC_BOUND, "input should be dynamic");
  static float buf[1 << 16];
  int64_t sizes[PTE_MAX_DIM];
  memcpy(sizes, io.sizes, sizeof sizes);
  for (int64_t b = 1; b <= io.sizes[0]; b++) {
    sizes[0] = b;
    pte_tensor t;
    CHECK_OK(pte_tensor_init(&t, PTE_FLOAT32, io.dim, sizes, buf));
    CHECK_OK(pte_method_set_input_tensor(m, 0, &t));
    CHECK_OK(pte_method_execute(m));
    const pte_value *out = pte_method_output(m, 0);
    CHECK(out->tag == PTE_TAG_TENSOR && out->u.tensor->sizes[0] == b,
          "output batch %lld for input batch %lld", (long long)out->u.tensor->sizes[0], (long long)b);
  }
  sizes[0] = io.sizes[0] + 1;
  pte_tensor t;
  CHECK_OK(pte_tensor_init(&t, PTE_FLOAT32, io.dim, sizes, buf));
  CHECK_FAILS(pte_method_set_input_tensor(m, 0, &t), PTE_ERR_INVALID_ARGUMENT, "upper bounds");
  pte_method_free(m);
  pte_program_free(p);
}

/* A scan's stacked output (et_copy_index in a JumpFalseCall loop) comes back
 * at each run's length: one method, run at shrinking lengths after the upper
 * bound, so neither the planned size nor a longer earlier run's is left. */
TEST(dynamic_scan_at_the_runs_length) {
  static const char *const cases[] = {"models/dynamic_scan_l1", "models/dynamic_scan_l5",
                                      "models/dynamic_scan_l8"};
  run_cases(cases, 3);
  pte_program *p = load("models/dynamic_scan_l5/model.pte");
  CHECK(p, "load");
  pte_method *m = load_method(p, "forward");
  CHECK(m, "method");
  static const int64_t lengths[] = {8, 7, 3, 1, 5};
  float x[8 * 3];
  for (int i = 0; i < 8 * 3; i++) x[i] = (float)i;
  for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
    int64_t n = lengths[k], sizes[2] = {n, 3};
    pte_tensor t;
    CHECK_OK(pte_tensor_init(&t, PTE_FLOAT32, 2, sizes, x));
    CHECK_OK(pte_method_set_input_tensor(m, 0, &t));
    CHECK_OK(pte_method_execute(m));
    const pte_value *carry = pte_method_output(m, 0), *ys = pte_method_output(m, 1);
    CHECK(ys->tag == PTE_TAG_TENSOR && ys->u.tensor->dim == 2 && ys->u.tensor->sizes[0] == n &&
              ys->u.tensor->sizes[1] == 3,
          "length %lld: stacked output [%lld, ...]", (long long)n, (long long)ys->u.tensor->sizes[0]);
    const float *y = ys->u.tensor->data, *c = carry->u.tensor->data;
    for (int j = 0; j < 3; j++) {
      float sum = 0;
      for (int64_t i = 0; i < n; i++) {
        sum += x[i * 3 + j];
        CHECK(y[i * 3 + j] == sum, "length %lld: ys[%lld][%d] = %g, want %g", (long long)n, (long long)i, j,
              (double)y[i * 3 + j], (double)sum);
      }
      CHECK(c[j] == sum, "length %lld: carry[%d] = %g, want %g", (long long)n, j, (double)c[j], (double)sum);
    }
  }
  pte_method_free(m);
  pte_program_free(p);
}

/* torch.cond (JumpFalseCall, MoveCall) and symbolic sizes (sym_size,
 * et_view, executorch_prim arithmetic) from real exports. */
TEST(control_flow_and_symbolic_sizes) {
  static const char *const cases[] = {"models/control_flow_true", "models/control_flow_false",
                                      "models/dynamic_symbolic_b2", "models/dynamic_symbolic_b5"};
  run_cases(cases, sizeof cases / sizeof cases[0]);
}

TEST(two_methods) {
  char err[512];
  CHECK(run_case(zoo_path("models/two_methods_forward"), "forward", NULL, 1e-4, 1e-5, err, sizeof err) ==
            PTE_OK,
        "forward: %s", err);
  CHECK(
      run_case(zoo_path("models/two_methods_encode"), "encode", NULL, 1e-4, 1e-5, err, sizeof err) == PTE_OK,
      "encode: %s", err);
  pte_program *p = load("models/two_methods_forward/model.pte");
  CHECK(p, "load");
  CHECK(pte_program_method_count(p) == 2, "two methods expected, got %d", (int)pte_program_method_count(p));
  pte_program_free(p);
}

TEST(external_weights_need_the_ptd) {
  char err[512];
  CHECK(run_case(zoo_path("models/external_weights"), "forward", "model.ptd", 1e-4, 1e-5, err, sizeof err) ==
            PTE_OK,
        "%s", err);
  pte_program *p = load("models/external_weights/model.pte");
  CHECK(p, "load");
  pte_method *m = NULL;
  CHECK_FAILS(pte_method_load(p, "forward", NULL, &m), PTE_ERR_NOT_FOUND, ".ptd");
  pte_program_free(p);
  pte_data_map *map = NULL;
  CHECK_OK(pte_data_map_load_file(zoo_path("models/external_weights/model.ptd"), NULL, &map));
  CHECK(pte_data_map_count(map) > 0, "empty map");
  pte_data_map_free(map);
}

TEST(buffer_loads) {
  size_t n;
  void *buf = read_file(zoo_path("models/mlp/model.pte"), &n);
  CHECK(buf, "read");
  pte_program *p = NULL;
  CHECK_OK(pte_program_load_buffer(buf, n, NULL, &p));
  pte_program_free(p);
  /* an unaligned buffer needs PTE_LOAD_COPY */
  char *un = (char *)malloc(n + 1);
  memcpy(un + 1, buf, n);
  CHECK_FAILS(pte_program_load_buffer(un + 1, n, NULL, &p), PTE_ERR_INVALID_ARGUMENT, "aligned");
  pte_program_options o = PTE_PROGRAM_OPTIONS_INIT;
  o.flags = PTE_LOAD_COPY;
  CHECK_OK(pte_program_load_buffer(un + 1, n, &o, &p));
  free(un);
  free(buf);
  pte_method *m = NULL;
  CHECK_OK(pte_method_load(p, "forward", NULL, &m)); /* the copy outlives the caller's buffer */
  pte_method_free(m);
  pte_program_free(p);
}

/* Resident kB of this process's mapping of `path` (/proc/self/smaps), -1
 * if there is none or no smaps. */
static long mapped_rss_kb(const char *path) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[4096];
  long rss = -1;
  int in = 0;
  size_t n = strlen(path);
  while (fgets(line, sizeof line, f)) {
    size_t l = strlen(line);
    while (l && (line[l - 1] == '\n' || line[l - 1] == ' ')) line[--l] = 0;
    if (strchr(line, '-') && strchr(line, ' ') && line[0] != 'R') {
      const char *sp = strrchr(line, ' ');
      in = l >= n && !strcmp(line + l - n, path) && sp;
    } else if (in && !strncmp(line, "Rss:", 4)) {
      rss = (rss < 0 ? 0 : rss) + atol(line + 4);
    }
  }
  fclose(f);
  return rss;
}

/* PTE_LOAD_PREFAULT pages the whole mapping in at load: the weights are
 * resident before the first execute. */
TEST(prefault_pages_the_mapping_in) {
  const char *rel = "models/resnet_tiny/model.pte";
  char path[4096];
  snprintf(path, sizeof path, "%s", zoo_path(rel));
  FILE *f = fopen(path, "rb");
  CHECK(f, "open");
  fseek(f, 0, SEEK_END);
  long size_kb = ftell(f) / 1024;
  fclose(f);
  pte_program *p = NULL;
  pte_program_options o = PTE_PROGRAM_OPTIONS_INIT;
  CHECK_OK(pte_program_load_file(path, &o, &p));
  long lazy = mapped_rss_kb(path);
  pte_program_free(p);
  if (lazy < 0) return; /* no smaps (not Linux) */
  o.flags = PTE_LOAD_PREFAULT;
  CHECK_OK(pte_program_load_file(path, &o, &p));
  long eager = mapped_rss_kb(path);
  CHECK(eager >= size_kb - 4, "prefaulted mapping has %ld of %ld kB resident", eager, size_kb);
  CHECK(lazy < eager, "the lazy mapping was already resident (%ld kB): the test shows nothing", lazy);
  pte_method *m = NULL;
  CHECK_OK(pte_method_load(p, "forward", NULL, &m));
  pte_method_free(m);
  pte_program_free(p);
}

TEST(missing_file_and_method) {
  pte_program *p = NULL;
  CHECK_FAILS(pte_program_load_file("/nonexistent/model.pte", NULL, &p), PTE_ERR_NOT_FOUND,
              "/nonexistent/model.pte");
  p = load("models/mlp/model.pte");
  CHECK(p, "load");
  pte_method *m = NULL;
  CHECK_FAILS(pte_method_load(p, "backward", NULL, &m), PTE_ERR_NOT_FOUND, "'forward'");
  pte_program_free(p);
}

/* Everything in caller memory: arena for structures, caller planned buffers. */
TEST(caller_provided_memory) {
  static uint8_t arena_mem[1 << 20] __attribute__((aligned(64)));
  static uint8_t planned_mem[4][1 << 18] __attribute__((aligned(64)));
  pte_arena arena;
  pte_arena_init(&arena, arena_mem, sizeof arena_mem);
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  po.allocator = &arena.allocator;
  pte_program *p = NULL;
  CHECK_OK(pte_program_load_file(zoo_path("models/mlp/model.pte"), &po, &p));
  pte_method_info mi;
  CHECK_OK(pte_program_method_info(p, "forward", &mi));
  CHECK(mi.num_planned_buffers <= 4, "too many buffers");
  void *bufs[4];
  size_t sizes[4];
  for (int32_t i = 0; i < mi.num_planned_buffers; i++) {
    int64_t s;
    CHECK_OK(pte_program_method_planned_size(p, "forward", i, &s));
    CHECK(s <= (int64_t)sizeof planned_mem[0], "buffer too big");
    bufs[i] = planned_mem[i];
    sizes[i] = (size_t)s;
  }
  pte_method_options mo = PTE_METHOD_OPTIONS_INIT;
  mo.allocator = &arena.allocator;
  mo.planned_buffers = bufs;
  mo.planned_sizes = sizes;
  mo.num_planned_buffers = mi.num_planned_buffers;
  pte_method *m = NULL;
  CHECK_OK(pte_method_load(p, "forward", &mo, &m));
  size_t used = arena.used;
  CHECK(used > 0 && used < sizeof arena_mem, "arena used %zu", used);
  /* too little caller memory is refused, not overrun */
  if (mi.num_planned_buffers > 0) {
    sizes[0] = 1;
    pte_method *m2 = NULL;
    CHECK_FAILS(pte_method_load(p, "forward", &mo, &m2), PTE_ERR_INVALID_ARGUMENT, "planned buffer 0");
  }
  pte_arena small;
  static uint8_t small_mem[256] __attribute__((aligned(64)));
  pte_arena_init(&small, small_mem, sizeof small_mem);
  mo.allocator = &small.allocator;
  mo.planned_buffers = NULL;
  pte_method *m3 = NULL;
  CHECK_FAILS(pte_method_load(p, "forward", &mo, &m3), PTE_ERR_OUT_OF_MEMORY, "out of memory");
  pte_method_free(m);
  pte_program_free(p);
}

/* A higher-priority kernel that declines falls back to the portable one; one
 * that accepts replaces it. */
static int g_fake_calls;
static pte_status fake_addmm(pte_kernel_ctx *c, pte_value **a, int32_t n) {
  (void)c;
  (void)a;
  (void)n;
  g_fake_calls++;
  return PTE_OK;
}
static bool decline(pte_value *const *a, int32_t n) {
  (void)a;
  (void)n;
  return false;
}

TEST(kernel_selection_by_priority) {
  static const pte_kernel declining[] = {{"aten::addmm.out", fake_addmm, decline, 0}};
  static const pte_kernel_library ldecl = PTE_KERNEL_LIBRARY_INIT("test_declining", 500, declining, 1);
  CHECK_OK(pte_register_kernels(&ldecl));
  char err[512];
  CHECK(run_case(zoo_path("models/mlp"), "forward", NULL, 1e-4, 1e-5, err, sizeof err) == PTE_OK, "%s", err);
  CHECK(g_fake_calls == 0, "declining kernel ran");
  static const pte_kernel taking[] = {{"aten::addmm.out", fake_addmm, 0, 0}};
  static const pte_kernel_library ltake = PTE_KERNEL_LIBRARY_INIT("test_taking", 600, taking, 1);
  CHECK_OK(pte_register_kernels(&ltake));
  run_case(zoo_path("models/mlp"), "forward", NULL, 1e-4, 1e-5, err, sizeof err);
  CHECK(g_fake_calls > 0, "higher-priority kernel did not run");
}

/* A disabled library is skipped by method loading and can come back. */
TEST(disable_kernel_library) {
  char err[512];
  CHECK_FAILS(pte_kernel_library_set_enabled("no_such_library", false), PTE_ERR_NOT_FOUND, "no_such_library");
  CHECK_OK(pte_kernel_library_set_enabled("kernels_portable", false));
  pte_status st = run_case(zoo_path("models/mlp"), "forward", NULL, 1e-4, 1e-5, err, sizeof err);
  CHECK_OK(pte_kernel_library_set_enabled("kernels_portable", true));
  CHECK(st != PTE_OK && strstr(err, "aten::"), "loaded with its kernels disabled: %s", err);
  CHECK(run_case(zoo_path("models/mlp"), "forward", NULL, 1e-4, 1e-5, err, sizeof err) == PTE_OK, "%s", err);
}

/* A zero-size dim lets the other dims multiply past 2^63 within any byte
 * bound: the strides must not overflow (UBSan caught it, found by
 * fuzz_bundled_program), and the tensor has no elements. */
TEST(zero_size_dim_beside_huge_dims) {
  const int64_t sizes[4] = {(int64_t)1 << 40, 0, (int64_t)1 << 40, (int64_t)1 << 40};
  pte_tensor t;
  CHECK_OK(pte_tensor_init(&t, PTE_FLOAT32, 4, sizes, NULL));
  CHECK(pte_tensor_numel(&t) == 0, "numel %lld", (long long)pte_tensor_numel(&t));
  CHECK(t.strides[3] == 1 && t.strides[2] == (int64_t)1 << 40, "strides %lld %lld", (long long)t.strides[2],
        (long long)t.strides[3]);
}

/* An allocator that hands out memory full of 0xA5: what the runtime does not
 * initialize shows. */
static void *scribble_alloc(void *user, size_t size, size_t alignment) {
  (void)user;
  if (alignment < 16) alignment = 16;
  size_t rounded = (size + alignment - 1) / alignment * alignment; /* aligned_alloc wants a multiple */
  void *p = aligned_alloc(alignment, rounded ? rounded : alignment);
  if (p) memset(p, 0xA5, size);
  return p;
}
static void scribble_free(void *user, void *p) {
  (void)user;
  free(p);
}

TEST(planned_memory_is_zeroed_at_load) {
  pte_program *p = load("models/mlp/model.pte");
  CHECK(p, "load");
  pte_allocator a = {NULL, scribble_alloc, scribble_free};
  pte_method_options o = PTE_METHOD_OPTIONS_INIT;
  o.allocator = &a;
  pte_method *m = NULL;
  CHECK_OK(pte_method_load(p, "forward", &o, &m));
  const pte_value *out = pte_method_output(m, 0);
  CHECK(out && out->tag == PTE_TAG_TENSOR && (out->u.tensor->flags & PTE_TENSOR_PLANNED), "planned output");
  const uint8_t *b = (const uint8_t *)out->u.tensor->data;
  size_t n = pte_tensor_nbytes(out->u.tensor), nonzero = 0;
  for (size_t i = 0; i < n; i++) nonzero += b[i] != 0;
  CHECK(n > 0 && nonzero == 0, "%zu of %zu planned bytes not zero at load", nonzero, n);
  pte_method_free(m);
  pte_program_free(p);
}

TEST(large_planned_memory_costs_nothing_until_written) {
  /* the default allocator: a plan of 64 KiB or more comes from zero pages,
   * zero and not resident after load (a plan sized for the longest prompt
   * costs what a call touches) */
  pte_program *p = load("models/resnet_tiny/model.pte");
  CHECK(p, "load");
  pte_method *m = load_method(p, "forward");
  CHECK(m, "method");
  const pte_value *out = pte_method_output(m, 0);
  CHECK(out && out->tag == PTE_TAG_TENSOR && (out->u.tensor->flags & PTE_TENSOR_PLANNED), "planned output");
  const long page = sysconf(_SC_PAGESIZE);
  uint8_t *b = (uint8_t *)out->u.tensor->data;
  uint8_t *first = (uint8_t *)((uintptr_t)b & ~(uintptr_t)(page - 1));
  unsigned char resident = 1;
  CHECK(mincore(first, (size_t)page, &resident) == 0, "mincore: %s", strerror(errno));
  CHECK(!(resident & 1), "the planned output's page is resident right after load");
  size_t n = pte_tensor_nbytes(out->u.tensor), nonzero = 0;
  for (size_t i = 0; i < n; i++) nonzero += b[i] != 0;
  CHECK(n > 0 && nonzero == 0, "%zu of %zu planned bytes not zero at load", nonzero, n);
  pte_method_free(m);
  pte_program_free(p);
}

TEST(set_output_refuses_planned_outputs) {
  pte_program *p = load("models/mlp/model.pte");
  CHECK(p, "load");
  pte_method *m = load_method(p, "forward");
  CHECK(m, "method");
  float buf[4096];
  CHECK_FAILS(pte_method_set_output(m, 0, buf, sizeof buf), PTE_ERR_INVALID_ARGUMENT, "memory planned");
  CHECK_FAILS(pte_method_set_output(m, 3, buf, sizeof buf), PTE_ERR_INVALID_ARGUMENT, "out of range");
  CHECK_FAILS(pte_method_set_output(NULL, 0, buf, sizeof buf), PTE_ERR_INVALID_ARGUMENT, "NULL");
  pte_method_free(m);
  pte_program_free(p);
}

/* Outputs the plan leaves unallocated (unplanned/add_sub.pte: x + y, x - y,
 * a batch of at most 4) are written where the caller lends, at the run's
 * shape; NULL gives the method's own bytes back and leaves the lent ones be. */
TEST(lent_output_is_written_by_execute) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/runtime/unplanned/add_sub.pte", PTERUN_SOURCE_DIR);
  pte_program *p = NULL;
  CHECK_OK(pte_program_load_file(path, NULL, &p));
  pte_method *m = load_method(p, "forward");
  CHECK(m, "method");
  float x[12], y[12], lent[12], small[11];
  for (int i = 0; i < 12; i++) x[i] = (float)i, y[i] = (float)(100 - 3 * i);
  CHECK_FAILS(pte_method_set_output(m, 0, small, sizeof small), PTE_ERR_INVALID_ARGUMENT, "needs 48 bytes");
  CHECK_OK(pte_method_set_output(m, 0, lent, sizeof lent));
  static const int64_t batches[] = {4, 2};
  for (size_t k = 0; k < 2; k++) {
    int64_t b = batches[k], sizes[2] = {b, 3};
    for (int i = 0; i < 12; i++) lent[i] = -1.0f;
    pte_tensor tx, ty;
    CHECK_OK(pte_tensor_init(&tx, PTE_FLOAT32, 2, sizes, x));
    CHECK_OK(pte_tensor_init(&ty, PTE_FLOAT32, 2, sizes, y));
    CHECK_OK(pte_method_set_input_tensor(m, 0, &tx));
    CHECK_OK(pte_method_set_input_tensor(m, 1, &ty));
    CHECK_OK(pte_method_execute(m));
    const pte_tensor *sum = pte_method_output(m, 0)->u.tensor, *diff = pte_method_output(m, 1)->u.tensor;
    CHECK(sum->data == lent && diff->data != lent, "output 0 in the lent buffer, output 1 in the method's");
    CHECK(sum->sizes[0] == b && diff->sizes[0] == b, "batch %lld: outputs [%lld, 3] and [%lld, 3]",
          (long long)b, (long long)sum->sizes[0], (long long)diff->sizes[0]);
    for (int i = 0; i < 12; i++) {
      float want = i < b * 3 ? x[i] + y[i] : -1.0f; /* past the run's shape: untouched */
      CHECK(lent[i] == want, "batch %lld: lent[%d] = %g, want %g", (long long)b, i, (double)lent[i],
            (double)want);
      if (i < b * 3)
        CHECK(((const float *)diff->data)[i] == x[i] - y[i], "batch %lld: x - y at %d", (long long)b, i);
    }
  }
  CHECK_OK(pte_method_set_output(m, 0, NULL, 0));
  for (int i = 0; i < 12; i++) lent[i] = -1.0f;
  CHECK_OK(pte_method_execute(m));
  const pte_tensor *sum = pte_method_output(m, 0)->u.tensor;
  CHECK(sum->data != lent && lent[0] == -1.0f, "after NULL the method's own bytes take output 0");
  for (int i = 0; i < 6; i++) CHECK(((const float *)sum->data)[i] == x[i] + y[i], "own x + y at %d", i);
  pte_method_free(m);
  pte_program_free(p);
}

TEST(attributes_of_a_program_without_names) {
  pte_program *p = load("models/mlp/model.pte");
  CHECK(p, "load");
  int32_t n = -1;
  CHECK_OK(pte_program_method_num_attributes(p, "forward", &n));
  CHECK(n == 0, "mlp has %d attributes", (int)n);
  const char *name;
  pte_io_info io;
  CHECK_FAILS(pte_program_method_attribute(p, "forward", 0, &name, &io), PTE_ERR_INVALID_ARGUMENT,
              "0 attributes");
  CHECK_FAILS(pte_program_method_num_attributes(p, "nope", &n), PTE_ERR_NOT_FOUND, "'nope'");
  pte_method *m = load_method(p, "forward");
  CHECK(m && !pte_method_attribute(m, "weight"), "no attribute named weight");
  pte_method_free(m);
  pte_program_free(p);
}

TEST_MAIN(T(register_portable_kernels), T(planned_memory_is_zeroed_at_load),
          T(large_planned_memory_costs_nothing_until_written), T(set_output_refuses_planned_outputs),
          T(lent_output_is_written_by_execute), T(attributes_of_a_program_without_names),
          T(zero_size_dim_beside_huge_dims), T(disable_kernel_library), T(zoo_mlp_matches_eager),
          T(zoo_models_match_eager), T(metadata_without_loading), T(wrong_inputs_are_named),
          T(dynamic_batch_within_bounds), T(dynamic_scan_at_the_runs_length),
          T(control_flow_and_symbolic_sizes), T(two_methods), T(external_weights_need_the_ptd),
          T(buffer_loads), T(prefault_pages_the_mapping_in), T(missing_file_and_method),
          T(caller_provided_memory), T(kernel_selection_by_priority))
