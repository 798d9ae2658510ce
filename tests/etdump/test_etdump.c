/* Tests of libpterun_etdump: recording, limits, the ETDump flatbuffer (checked
 * against a description of the schema with the runtime's verifier, then read
 * back), the summary, debug capture, Chrome traces, and that a traced execute
 * still allocates nothing.
 *
 *   test_etdump CASE PROGRAMS_DIR WORK_DIR */
#define _POSIX_C_SOURCE 200809L
#include <pterun/etdump.h>
#include <pterun/kernels_portable.h>
#include <pterun/runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../devtools/etdump/fbb.h"

pte_status pte_test_delegate_register(void);

static int g_failures;
static const char *g_programs = ".";
static const char *g_work = ".";

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
              pte_last_error());                                                               \
      g_failures++;                                                                            \
    }                                                                                          \
  } while (0)
#define REQUIRE(cond)                  \
  do {                                 \
    int before_ = g_failures;          \
    CHECK(cond);                       \
    if (g_failures != before_) return; \
  } while (0)

/* ------------------------------------------------------------------------ */
/* Allocation counting: the executable's malloc family wins over libc's for */
/* every library, so a traced execute that allocated would be seen.        */
/* ------------------------------------------------------------------------ */

#if !defined(PTERUN_TEST_NO_MALLOC_HOOK)
#include "../common/alloc_count.h"
#endif

/* ------------------------------------------------------------------------ */
/* The ETDump schema, for pte_fb_verify (field order = declaration order).  */
/* ------------------------------------------------------------------------ */

static const pte_fb_slot s_tensor[] = {{"scalar_type", PTE_FB_SCALAR, 1, 0, NULL, NULL},
                                       {"sizes", PTE_FB_VEC_SCALAR, 8, 0, NULL, NULL},
                                       {"strides", PTE_FB_VEC_SCALAR, 8, 0, NULL, NULL},
                                       {"offset", PTE_FB_SCALAR, 8, 0, NULL, NULL}};
static const pte_fb_table t_tensor = {"Tensor", 4, s_tensor};
static const pte_fb_slot s_tensor_list[] = {{"tensors", PTE_FB_VEC_TABLE, 0, 0, &t_tensor, NULL}};
static const pte_fb_table t_tensor_list = {"TensorList", 1, s_tensor_list};
static const pte_fb_slot s_i64[] = {{"val", PTE_FB_SCALAR, 8, 0, NULL, NULL}};
static const pte_fb_slot s_u8[] = {{"val", PTE_FB_SCALAR, 1, 0, NULL, NULL}};
static const pte_fb_slot s_f32[] = {{"val", PTE_FB_SCALAR, 4, 0, NULL, NULL}};
static const pte_fb_table t_int = {"Int", 1, s_i64};
static const pte_fb_table t_bool = {"Bool", 1, s_u8};
static const pte_fb_table t_float = {"Float", 1, s_f32};
static const pte_fb_table t_double = {"Double", 1, s_i64};
static const pte_fb_slot s_value[] = {{"val", PTE_FB_SCALAR, 1, 0, NULL, NULL},
                                      {"tensor", PTE_FB_TABLE, 0, 0, &t_tensor, NULL},
                                      {"tensor_list", PTE_FB_TABLE, 0, 0, &t_tensor_list, NULL},
                                      {"int_value", PTE_FB_TABLE, 0, 0, &t_int, NULL},
                                      {"float_value", PTE_FB_TABLE, 0, 0, &t_float, NULL},
                                      {"double_value", PTE_FB_TABLE, 0, 0, &t_double, NULL},
                                      {"bool_value", PTE_FB_TABLE, 0, 0, &t_bool, NULL},
                                      {"output", PTE_FB_TABLE, 0, 0, &t_bool, NULL}};
static const pte_fb_table t_value = {"Value", 8, s_value};
static const pte_fb_slot s_debug[] = {{"chain_index", PTE_FB_SCALAR, 8, 0, NULL, NULL},
                                      {"instruction_id", PTE_FB_SCALAR, 4, 0, NULL, NULL},
                                      {"debug_entry", PTE_FB_TABLE, 0, 0, &t_value, NULL},
                                      {"delegate_debug_id_int", PTE_FB_SCALAR, 4, 0, NULL, NULL},
                                      {"delegate_debug_id_str", PTE_FB_STRING, 0, 0, NULL, NULL},
                                      {"name", PTE_FB_STRING, 0, 0, NULL, NULL}};
static const pte_fb_table t_debug = {"DebugEvent", 6, s_debug};
static const pte_fb_slot s_alloc[] = {{"allocator_id", PTE_FB_SCALAR, 4, 0, NULL, NULL},
                                      {"allocation_size", PTE_FB_SCALAR, 8, 0, NULL, NULL}};
static const pte_fb_table t_alloc = {"AllocationEvent", 2, s_alloc};
static const pte_fb_slot s_profile[] = {{"name", PTE_FB_STRING, 0, 0, NULL, NULL},
                                        {"chain_index", PTE_FB_SCALAR, 4, 0, NULL, NULL},
                                        {"instruction_id", PTE_FB_SCALAR, 4, 0, NULL, NULL},
                                        {"delegate_debug_id_int", PTE_FB_SCALAR, 4, 0, NULL, NULL},
                                        {"delegate_debug_id_str", PTE_FB_STRING, 0, 0, NULL, NULL},
                                        {"delegate_debug_metadata", PTE_FB_VEC_SCALAR, 1, 0, NULL, NULL},
                                        {"start_time", PTE_FB_SCALAR, 8, 0, NULL, NULL},
                                        {"end_time", PTE_FB_SCALAR, 8, 0, NULL, NULL}};
static const pte_fb_table t_profile = {"ProfileEvent", 8, s_profile};
static const pte_fb_slot s_event[] = {{"profile_event", PTE_FB_TABLE, 0, 0, &t_profile, NULL},
                                      {"allocation_event", PTE_FB_TABLE, 0, 0, &t_alloc, NULL},
                                      {"debug_event", PTE_FB_TABLE, 0, 0, &t_debug, NULL}};
static const pte_fb_table t_event = {"Event", 3, s_event};
static const pte_fb_slot s_allocator[] = {{"name", PTE_FB_STRING, 0, 0, NULL, NULL}};
static const pte_fb_table t_allocator = {"Allocator", 1, s_allocator};
static const pte_fb_slot s_run[] = {{"name", PTE_FB_STRING, 0, 0, NULL, NULL},
                                    {"bundled_input_index", PTE_FB_SCALAR, 4, 0, NULL, NULL},
                                    {"allocators", PTE_FB_VEC_TABLE, 0, 0, &t_allocator, NULL},
                                    {"events", PTE_FB_VEC_TABLE, 0, 0, &t_event, NULL}};
static const pte_fb_table t_run = {"RunData", 4, s_run};
static const pte_fb_slot s_root[] = {{"version", PTE_FB_SCALAR, 4, 0, NULL, NULL},
                                     {"run_data", PTE_FB_VEC_TABLE, 0, 0, &t_run, NULL}};
static const pte_fb_table t_root = {"ETDump", 2, s_root};

/* An ETDump read back into a flat list. */
typedef struct pev {
  int run;
  const char *run_name;
  bool debug;
  const char *name; /* "" when absent */
  int32_t instruction;
  int32_t chain;
  int32_t dint;
  const char *dstr;
  uint64_t start, end;
  bool output;
  int8_t value_type;
  int32_t scalar_type;
  int64_t offset;
  int32_t dim;
  int64_t sizes[PTE_MAX_DIM];
} pev;

typedef struct parsed {
  void *data;
  size_t size;
  int nruns;
  pev *ev;
  int n;
} parsed;

static void parsed_free(parsed *p) {
  free(p->data);
  free(p->ev);
  memset(p, 0, sizeof *p);
}

static bool parse_etdump(const pte_etdump *e, parsed *out) {
  memset(out, 0, sizeof *out);
  if (pte_etdump_serialize(e, &out->data, &out->size)) return false;
  const uint8_t *b = (const uint8_t *)out->data;
  if (out->size < 12 || pte_fb_u32(b) != out->size - 4 || out->size % 8) {
    fprintf(stderr, "bad size prefix %u for %zu bytes\n", pte_fb_u32(b), out->size);
    return false;
  }
  if (pte_fb_verify(b + 4, out->size - 4, &t_root, "ED00")) return false;
  pte_fb fb = {b + 4, out->size - 4};
  uint32_t root = pte_fb_root(fb);
  if (pte_fb_scalar(fb, root, 0, 4, 99) != 0) return false;
  uint32_t runs = pte_fb_ref(fb, root, 1);
  out->nruns = (int)pte_fb_vec_len(fb, runs);
  size_t cap = 64;
  out->ev = (pev *)calloc(cap, sizeof(pev));
  for (int r = 0; r < out->nruns; r++) {
    uint32_t run = pte_fb_vec_table(fb, runs, (uint32_t)r);
    const char *rname = pte_fb_str(fb, pte_fb_ref(fb, run, 0));
    uint32_t evs = pte_fb_ref(fb, run, 3);
    for (uint32_t i = 0; i < pte_fb_vec_len(fb, evs); i++) {
      if ((size_t)out->n == cap) {
        cap *= 2;
        out->ev = (pev *)realloc(out->ev, cap * sizeof(pev));
      }
      pev *p = &out->ev[out->n++];
      memset(p, 0, sizeof *p);
      p->run = r;
      p->run_name = rname ? rname : "";
      uint32_t ev = pte_fb_vec_table(fb, evs, i);
      uint32_t pe = pte_fb_ref(fb, ev, 0), de = pte_fb_ref(fb, ev, 2);
      if (pe) {
        const char *nm = pte_fb_str(fb, pte_fb_ref(fb, pe, 0));
        p->name = nm ? nm : "";
        p->chain = (int32_t)pte_fb_scalar(fb, pe, 1, 4, 0);
        p->instruction = (int32_t)pte_fb_scalar(fb, pe, 2, 4, (uint32_t)-1);
        p->dint = (int32_t)pte_fb_scalar(fb, pe, 3, 4, (uint32_t)-1);
        p->dstr = pte_fb_str(fb, pte_fb_ref(fb, pe, 4));
        p->start = pte_fb_scalar(fb, pe, 6, 8, 0);
        p->end = pte_fb_scalar(fb, pe, 7, 8, 0);
      } else if (de) {
        p->debug = true;
        p->name = "";
        p->instruction = (int32_t)pte_fb_scalar(fb, de, 1, 4, (uint32_t)-1);
        p->dint = (int32_t)pte_fb_scalar(fb, de, 3, 4, (uint32_t)-1);
        uint32_t v = pte_fb_ref(fb, de, 2);
        p->value_type = (int8_t)pte_fb_scalar(fb, v, 0, 1, 0);
        uint32_t outb = pte_fb_ref(fb, v, 7);
        p->output = outb && pte_fb_scalar(fb, outb, 0, 1, 0);
        uint32_t t = pte_fb_ref(fb, v, 1);
        if (t) {
          p->scalar_type = (int32_t)pte_fb_scalar(fb, t, 0, 1, 0);
          p->offset = (int64_t)pte_fb_scalar(fb, t, 3, 8, 0);
          uint32_t sz = pte_fb_ref(fb, t, 1);
          p->dim = (int32_t)pte_fb_vec_len(fb, sz);
          for (int k = 0; k < p->dim && k < PTE_MAX_DIM; k++)
            p->sizes[k] = (int64_t)pte_fb_u64(pte_fb_vec_data(fb, sz) + 8 * k);
        }
      } else {
        return false; /* exactly one of the members must be set */
      }
    }
  }
  return true;
}

static int count_named(const parsed *p, int run, const char *name) {
  int n = 0;
  for (int i = 0; i < p->n; i++)
    if (p->ev[i].run == run && !p->ev[i].debug && !strcmp(p->ev[i].name, name)) n++;
  return n;
}

/* ------------------------------------------------------------------------ */

static char *path_in(const char *dir, const char *name) {
  static char buf[4][4096];
  static int k;
  char tmp[4096]; /* dir may be an earlier result of this function */
  snprintf(tmp, sizeof tmp, "%s/%s", dir, name);
  char *p = buf[k++ % 4];
  memcpy(p, tmp, sizeof tmp);
  return p;
}

static bool file_exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 && sb.st_size > 0;
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *s = (char *)malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = 0;
  fclose(f);
  return s;
}

static int count_substr(const char *s, const char *sub) {
  int n = 0;
  for (const char *p = strstr(s, sub); p; p = strstr(p + 1, sub)) n++;
  return n;
}

static void fake(const pte_tracer *tr, int kind, int instr, const char *name, int64_t debug_id,
                 uint64_t *tok) {
  pte_event ev = {kind, instr >= 0 ? 0 : -1, instr, 0, debug_id, name, "forward"};
  *tok = tr->begin(tr->user, &ev);
}
static void fake_end(const pte_tracer *tr, uint64_t tok) {
  pte_event ev = {0, 0, 0, 0, -1, NULL, NULL};
  tr->end(tr->user, &ev, tok);
}

/* Driving the tracer by hand: blocks, nesting, limits, names. */
static void test_synthetic(void) {
  pte_etdump_options o = PTE_ETDUMP_OPTIONS_INIT;
  o.max_events = 9;
  pte_etdump *e;
  REQUIRE(pte_etdump_create(&o, &e) == PTE_OK);
  const pte_tracer *tr = pte_etdump_tracer(e);
  CHECK(tr && tr->begin && tr->end && !tr->capture_outputs);
  uint64_t t1, t2, t3;
  fake(tr, PTE_EVENT_PROGRAM_LOAD, -1, "Program::load", -1, &t1);
  fake_end(tr, t1);
  fake(tr, PTE_EVENT_METHOD_LOAD, -1, "Method::init", -1, &t1);
  fake_end(tr, t1);
  /* A name whose memory is reused between executes (a method freed, another
   * loaded at the same address) must not be confused; within one execute the
   * runtime's names do not change. */
  char name[32] = "aten::first.out";
  char *heap = (char *)malloc(32);
  strcpy(heap, "aten::heap.out");
  fake(tr, PTE_EVENT_EXECUTE, -1, "Method::execute", -1, &t1);
  fake(tr, PTE_EVENT_OPERATOR, 0, name, -1, &t2);
  fake_end(tr, t2);
  fake(tr, PTE_EVENT_DELEGATE, 1, "SomeBackend", -1, &t2);
  fake(tr, PTE_EVENT_BACKEND, -1, "node", 7, &t3); /* call site inherited from DELEGATE_CALL */
  fake_end(tr, t3);
  fake_end(tr, t2);
  fake(tr, PTE_EVENT_OPERATOR, 2, heap, -1, &t2);
  fake_end(tr, t2);
  fake_end(tr, t1);
  free(heap); /* the etdump keeps its own copy */
  strcpy(name, "aten::second.out");
  /* Second execute: one record left, then the rest is dropped. */
  fake(tr, PTE_EVENT_EXECUTE, -1, "Method::execute", -1, &t1);
  fake(tr, PTE_EVENT_OPERATOR, 0, name, -1, &t2);
  fake_end(tr, t2);
  fake(tr, PTE_EVENT_OPERATOR, 1, "aten::third.out", -1, &t2);
  CHECK(t2 == UINT64_MAX);
  fake_end(tr, t2);
  fake_end(tr, t1);
  pte_etdump_stats s;
  pte_etdump_get_stats(e, &s);
  CHECK(s.events == 9);
  CHECK(s.dropped_events == 1);
  CHECK(s.executes == 2);
  CHECK(s.runs == 3);

  parsed p;
  REQUIRE(parse_etdump(e, &p));
  CHECK(p.nruns == 3);
  CHECK(!strcmp(p.ev[0].run_name, "Default"));
  CHECK(count_named(&p, 0, "Program::load") == 1);
  CHECK(count_named(&p, 0, "Program::load_method") == 1);
  CHECK(count_named(&p, 0, "Method::init") == 1);
  CHECK(count_named(&p, 1, "OPERATOR_CALL") == 2);
  CHECK(count_named(&p, 1, "aten::first.out") == 1);
  CHECK(count_named(&p, 1, "aten::heap.out") == 1);
  CHECK(count_named(&p, 1, "DELEGATE_CALL") == 1);
  CHECK(count_named(&p, 2, "Method::execute") == 1);
  CHECK(count_named(&p, 2, "OPERATOR_CALL") == 1);
  CHECK(count_named(&p, 2, "aten::second.out") == 1);
  CHECK(count_named(&p, 2, "aten::first.out") == 0);
  CHECK(count_named(&p, 2, "aten::third.out") == 0);
  bool found_backend = false;
  for (int i = 0; i < p.n; i++)
    if (p.ev[i].dint == 7) {
      found_backend = true;
      CHECK(p.ev[i].instruction == 1);
      CHECK(!strcmp(p.ev[i].name, "node"));
    }
  CHECK(found_backend);
  parsed_free(&p);

  pte_etdump_row rows[8];
  int32_t n = pte_etdump_summary(e, rows, 8);
  CHECK(n == 5); /* first, second, heap, SomeBackend (DELEGATE), node (BACKEND) */
  CHECK(n > 0 && rows[n - 1].kind == PTE_EVENT_BACKEND);
  for (int32_t i = 0; i + 1 < n; i++)
    if (rows[i].kind == rows[i + 1].kind) CHECK(rows[i].total_ns >= rows[i + 1].total_ns);
  size_t need = pte_etdump_table(e, NULL, 0);
  char small[16];
  CHECK(pte_etdump_table(e, small, sizeof small) == need && strlen(small) == sizeof small - 1);
  char *t = (char *)malloc(need + 1);
  CHECK(pte_etdump_table(e, t, need + 1) == need && strlen(t) == need);
  CHECK(strstr(t, "aten::heap.out") && strstr(t, "DROPPED"));
  free(t);

  pte_etdump_reset(e);
  pte_etdump_get_stats(e, &s);
  CHECK(s.events == 0 && s.dropped_events == 0 && s.runs == 0);
  CHECK(pte_etdump_set_capture(e, true) == PTE_ERR_INVALID_STATE);
  pte_etdump_free(e);
}

/* Caller memory: exactly the reported size works, less fails cleanly. */
static void test_caller_memory(void) {
  pte_etdump_options o = PTE_ETDUMP_OPTIONS_INIT;
  o.max_events = 100;
  o.debug_buffer_size = 4096;
  size_t need = pte_etdump_memory_size(&o);
  CHECK(need > 4096);
  void *mem = malloc(need);
  o.memory = mem;
  o.memory_size = need - 1;
  pte_etdump *e = NULL;
  CHECK(pte_etdump_create(&o, &e) == PTE_ERR_OUT_OF_MEMORY && e == NULL);
  o.memory_size = need;
  CHECK(pte_etdump_create(&o, &e) == PTE_OK && e);
  CHECK(pte_etdump_tracer(e)->capture_outputs);
  pte_etdump_free(e); /* does not free caller memory */
  free(mem);
  o.memory = NULL;
  o.max_events = 1 << 30;
  CHECK(pte_etdump_create(&o, &e) == PTE_ERR_INVALID_ARGUMENT);
  /* options of another ABI are refused, naming both versions */
  o.max_events = 100;
  o.abi = PTE_ABI_VERSION + 1;
  char want[128];
  snprintf(want, sizeof want, "pte_etdump_options was built for pterun ABI %u, this runtime has ABI %u",
           (unsigned)PTE_ABI_VERSION + 1, (unsigned)PTE_ABI_VERSION);
  CHECK(pte_etdump_create(&o, &e) == PTE_ERR_NOT_SUPPORTED && e == NULL);
  CHECK(strstr(pte_last_error(), want) != NULL);
  CHECK(pte_etdump_memory_size(&o) == 0);
  /* its tracer carries the runtime's ABI, so methods accept it */
  CHECK(pte_etdump_create(NULL, &e) == PTE_OK && pte_etdump_tracer(e)->abi == PTE_ABI_VERSION);
  pte_etdump_free(e);
}

/* The flatbuffer builder alone: strings, vectors, shared vtables. */
static void test_fbb(void) {
  fbb b;
  fbb_init(&b);
  fbb_ref s = fbb_string(&b, "hello");
  int64_t v[3] = {1, -2, 3};
  fbb_ref vec = fbb_vec_scalars(&b, 8, 3, v);
  fbb_ref kids[2];
  for (int i = 0; i < 2; i++) { /* identical layouts: the second shares the vtable */
    fbb_table_start(&b);
    fbb_add_i32(&b, 0, 40 + i); /* 4-byte fields: no padding, so equal layouts */
    kids[i] = fbb_table_end(&b);
  }
  fbb_ref kv = fbb_vec_refs(&b, kids, 2);
  fbb_table_start(&b);
  fbb_add_ref(&b, 0, s);
  fbb_add_ref(&b, 1, vec);
  fbb_add_ref(&b, 2, kv);
  fbb_add_u8(&b, 3, 5);
  fbb_ref root = fbb_table_end(&b);
  size_t n = 0;
  const uint8_t *buf = fbb_finish(&b, root, "TEST", false, &n);
  REQUIRE(buf && fbb_ok(&b));
  static const pte_fb_slot ks[] = {{"v", PTE_FB_SCALAR, 4, 0, NULL, NULL}};
  static const pte_fb_table kt = {"Kid", 1, ks};
  static const pte_fb_slot rs[] = {{"s", PTE_FB_STRING, 0, 0, NULL, NULL},
                                   {"vec", PTE_FB_VEC_SCALAR, 8, 0, NULL, NULL},
                                   {"kids", PTE_FB_VEC_TABLE, 0, 0, &kt, NULL},
                                   {"b", PTE_FB_SCALAR, 1, 0, NULL, NULL}};
  static const pte_fb_table rt = {"Root", 4, rs};
  CHECK(pte_fb_verify(buf, n, &rt, "TEST") == PTE_OK);
  CHECK(pte_fb_verify(buf, n, &rt, "NOPE") != PTE_OK);
  pte_fb fb = {buf, n};
  uint32_t r = pte_fb_root(fb);
  CHECK(!strcmp(pte_fb_str(fb, pte_fb_ref(fb, r, 0)), "hello"));
  uint32_t vr = pte_fb_ref(fb, r, 1);
  CHECK(pte_fb_vec_len(fb, vr) == 3 && (int64_t)pte_fb_u64(pte_fb_vec_data(fb, vr) + 8) == -2);
  uint32_t kr = pte_fb_ref(fb, r, 2);
  CHECK(pte_fb_vec_len(fb, kr) == 2);
  CHECK(pte_fb_scalar(fb, pte_fb_vec_table(fb, kr, 0), 0, 4, 0) == 40);
  CHECK(pte_fb_scalar(fb, pte_fb_vec_table(fb, kr, 1), 0, 4, 0) == 41);
  CHECK(pte_fb_scalar(fb, r, 3, 1, 0) == 5);
  CHECK(b.nvtables == 2); /* Kid (shared) and Root */
  fbb_release(&b);
}

/* ---- real programs ---- */

typedef struct run_ctx {
  pte_program *program;
  pte_method *method;
  pte_tensor in[2];
  float data[2][64];
} run_ctx;

static bool load_run(run_ctx *c, const char *file, const pte_tracer *tr) {
  memset(c, 0, sizeof *c);
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  po.tracer = tr;
  if (pte_program_load_file(path_in(g_programs, file), &po, &c->program)) return false;
  pte_method_options mo = PTE_METHOD_OPTIONS_INIT;
  mo.tracer = tr;
  if (pte_method_load(c->program, "forward", &mo, &c->method)) return false;
  for (int32_t i = 0; i < pte_method_num_inputs(c->method); i++) {
    pte_io_info info;
    if (pte_program_method_input(c->program, "forward", i, &info)) return false;
    for (int k = 0; k < 64; k++) c->data[i][k] = (float)((k * 7 + i * 3) % 11) / 5.0f - 1.0f;
    pte_tensor_init(&c->in[i], info.dtype, info.dim, info.sizes, c->data[i]);
    if (pte_method_set_input_tensor(c->method, i, &c->in[i])) return false;
  }
  return true;
}

/* Inputs are set again each time: planned memory of an input may be reused
 * for intermediates (delegated.pte's relu output lives where y was). */
static pte_status execute(run_ctx *c) {
  for (int32_t i = 0; i < pte_method_num_inputs(c->method); i++) {
    pte_status st = pte_method_set_input_tensor(c->method, i, &c->in[i]);
    if (st) return st;
  }
  return pte_method_execute(c->method);
}

static void unload_run(run_ctx *c) {
  pte_method_free(c->method);
  pte_program_free(c->program);
}

/* Every span nests in the Method::execute of its run and has end >= start. */
static void check_nesting(const parsed *p) {
  for (int r = 0; r < p->nruns; r++) {
    const pev *exec = NULL;
    for (int i = 0; i < p->n; i++)
      if (p->ev[i].run == r && !p->ev[i].debug && !strcmp(p->ev[i].name, "Method::execute")) exec = &p->ev[i];
    for (int i = 0; i < p->n; i++) {
      const pev *x = &p->ev[i];
      if (x->run != r || x->debug) continue;
      CHECK(x->end >= x->start && x->start > 0);
      if (exec) CHECK(x->start >= exec->start && x->end <= exec->end);
    }
    if (exec) CHECK(exec->end > exec->start);
  }
}

static void test_mlp_profile(void) {
  pte_etdump *e;
  REQUIRE(pte_etdump_create(NULL, &e) == PTE_OK);
  run_ctx c;
  REQUIRE(load_run(&c, "mlp.pte", pte_etdump_tracer(e)));
  pte_method_info mi;
  REQUIRE(pte_program_method_info(c.program, "forward", &mi) == PTE_OK);
  const int runs = 3;
  for (int i = 0; i < runs; i++) CHECK(execute(&c) == PTE_OK);
  /* Detached: nothing more is recorded. */
  pte_method_set_tracer(c.method, NULL);
  CHECK(execute(&c) == PTE_OK);
  pte_etdump_stats s;
  pte_etdump_get_stats(e, &s);
  CHECK(s.executes == runs);
  CHECK(s.events == 2 + runs * (1 + mi.num_instructions));
  CHECK(s.dropped_events == 0);

  parsed p;
  REQUIRE(parse_etdump(e, &p));
  CHECK(p.nruns == 1 + runs);
  for (int r = 1; r <= runs; r++) {
    CHECK(count_named(&p, r, "Method::execute") == 1);
    CHECK(count_named(&p, r, "OPERATOR_CALL") == mi.num_instructions);
    int named = 0;
    for (int32_t op = 0; op < mi.num_operators; op++) {
      const char *on, *ov;
      REQUIRE(pte_program_method_operator(c.program, "forward", op, &on, &ov) == PTE_OK);
      char full[256];
      snprintf(full, sizeof full, "%s.%s", on, ov);
      named += count_named(&p, r, full);
      CHECK(count_named(&p, r, full) >= 1);
    }
    CHECK(named == mi.num_instructions);
    /* Each instruction id once per OPERATOR_CALL, in order, chain 0. */
    int next = 0;
    for (int i = 0; i < p.n; i++)
      if (p.ev[i].run == r && !strcmp(p.ev[i].name, "OPERATOR_CALL")) {
        CHECK(p.ev[i].instruction == next++);
        CHECK(p.ev[i].chain == 0);
      }
  }
  check_nesting(&p);
  parsed_free(&p);

  pte_etdump_row rows[16];
  int32_t n = pte_etdump_summary(e, rows, 16);
  CHECK(n == mi.num_operators);
  int64_t total = 0;
  double share = 0;
  for (int32_t i = 0; i < n; i++) {
    total += rows[i].count;
    share += rows[i].share;
    CHECK(rows[i].kind == PTE_EVENT_OPERATOR);
    CHECK(rows[i].min_ns <= rows[i].mean_ns && rows[i].mean_ns <= rows[i].max_ns);
  }
  CHECK(total == (int64_t)runs * mi.num_instructions);
  CHECK(share > 0.0 && share <= 1.0);
  int64_t execs = 0;
  CHECK(pte_etdump_execute_ns(e, &execs) > 0 && execs == runs);

  CHECK(pte_etdump_write_trace(e, path_in(g_work, "mlp_trace.json")) == PTE_OK);
  char *json = read_text(path_in(g_work, "mlp_trace.json"));
  REQUIRE(json);
  CHECK(!strncmp(json, "{\"traceEvents\": [", 17));
  CHECK(count_substr(json, "\"ph\": \"X\"") == (int)s.events);
  free(json);
  CHECK(pte_etdump_write(e, path_in(g_work, "mlp.etdp"), NULL) == PTE_OK);
  CHECK(file_exists(path_in(g_work, "mlp.etdp")));
  CHECK(pte_etdump_write_debug_tensors(e, path_in(g_work, "none"), 0) ==
        PTE_OK); /* nothing captured: index only */
  unload_run(&c);
  /* The method is gone; its names are not. */
  CHECK(pte_etdump_write(e, path_in(g_work, "mlp2.etdp"), NULL) == PTE_OK);
  pte_etdump_free(e);
}

static void test_mlp_debug(void) {
  pte_etdump_options o = PTE_ETDUMP_OPTIONS_INIT;
  o.debug_buffer_size = 1 << 20;
  pte_etdump *e;
  REQUIRE(pte_etdump_create(&o, &e) == PTE_OK);
  run_ctx c;
  REQUIRE(load_run(&c, "mlp.pte", pte_etdump_tracer(e)));
  pte_method_info mi;
  REQUIRE(pte_program_method_info(c.program, "forward", &mi) == PTE_OK);
  CHECK(execute(&c) == PTE_OK);
  CHECK(execute(&c) == PTE_OK);
  pte_etdump_stats s;
  pte_etdump_get_stats(e, &s);
  CHECK(s.debug_values == 2 * (mi.num_instructions + mi.num_outputs));
  CHECK(s.dropped_debug_values == 0);

  parsed p;
  REQUIRE(parse_etdump(e, &p));
  const pte_tensor *out = pte_method_output(c.method, 0)->u.tensor;
  int outputs = 0, last_instr = -1;
  int64_t last_offset = -1;
  for (int i = 0; i < p.n; i++) {
    const pev *x = &p.ev[i];
    if (!x->debug || x->run != 1) continue;
    CHECK(x->value_type == 5 /* Tensor */ && x->scalar_type == PTE_FLOAT32);
    if (x->output) {
      outputs++;
      CHECK(x->instruction == -1);
      CHECK(x->dim == out->dim && x->sizes[0] == out->sizes[0]);
    } else if (x->instruction > last_instr) {
      last_instr = x->instruction;
      last_offset = x->offset;
    }
  }
  CHECK(outputs == 1);
  CHECK(last_instr == mi.num_instructions - 1);
  parsed_free(&p);
  /* The last instruction's captured output is the method's output. */
  CHECK(pte_etdump_write_debug_buffer(e, path_in(g_work, "mlp_debug.bin")) == PTE_OK);
  char *dbg = read_text(path_in(g_work, "mlp_debug.bin"));
  REQUIRE(dbg && last_offset >= 0);
  CHECK(memcmp(dbg + last_offset, out->data, pte_tensor_nbytes(out)) == 0);
  free(dbg);

  const char *dir = path_in(g_work, "mlp_tensors");
  CHECK(pte_etdump_write_debug_tensors(e, dir, -1) == PTE_OK);
  CHECK(file_exists(path_in(dir, "index.json")));
  CHECK(file_exists(path_in(dir, "0_aten__permute_copy.out_0.npy")));
  CHECK(file_exists(path_in(dir, "output_0.npy")));
  char *index = read_text(path_in(dir, "index.json"));
  REQUIRE(index);
  CHECK(strstr(index, "\"execute\": 1"));
  CHECK(count_substr(index, "\"file\":") == mi.num_instructions + mi.num_outputs);
  free(index);
  CHECK(pte_etdump_write_debug_tensors(e, dir, 5) == PTE_ERR_INVALID_ARGUMENT);

  /* A debug buffer too small for one run drops values and says so. */
  pte_etdump_free(e);
  o.debug_buffer_size = 64;
  REQUIRE(pte_etdump_create(&o, &e) == PTE_OK);
  pte_etdump_attach(e, c.method);
  CHECK(execute(&c) == PTE_OK);
  pte_etdump_get_stats(e, &s);
  CHECK(s.dropped_debug_values > 0 && s.debug_bytes <= 64);
  REQUIRE(parse_etdump(e, &p));
  parsed_free(&p);
  unload_run(&c);
  pte_etdump_free(e);
}

/* Tracing and capture do not allocate on the execute path. */
static void test_no_alloc(void) {
#if defined(PTERUN_TEST_NO_MALLOC_HOOK)
  printf("skipped: malloc cannot be interposed in this build\n");
#else
  pte_etdump_options o = PTE_ETDUMP_OPTIONS_INIT;
  o.debug_buffer_size = 8 << 20;
  pte_etdump *e;
  REQUIRE(pte_etdump_create(&o, &e) == PTE_OK);
  run_ctx c;
  REQUIRE(load_run(&c, "mlp.pte", pte_etdump_tracer(e)));
  CHECK(execute(&c) == PTE_OK); /* first names interned */
  alloc_count_start();
  for (int i = 0; i < 200; i++) execute(&c);
  CHECK(alloc_count_stop() == 0);
  pte_etdump_stats s;
  pte_etdump_get_stats(e, &s);
  CHECK(s.executes == 201 && s.dropped_events == 0);
  /* Sanity: the hook does see allocations made inside the libraries. */
  void *data;
  size_t size;
  alloc_count_start();
  CHECK(pte_etdump_serialize(e, &data, &size) == PTE_OK);
  long seen = alloc_count_stop();
  free(data);
  CHECK(seen > 0);
  unload_run(&c);
  pte_etdump_free(e);
#endif
}

static void test_delegate(void) {
  REQUIRE(pte_test_delegate_register() == PTE_OK);
  pte_etdump_options o = PTE_ETDUMP_OPTIONS_INIT;
  o.debug_buffer_size = 1 << 16;
  pte_etdump *e;
  REQUIRE(pte_etdump_create(&o, &e) == PTE_OK);
  run_ctx c;
  REQUIRE(load_run(&c, "delegated.pte", pte_etdump_tracer(e)));
  CHECK(execute(&c) == PTE_OK);
  CHECK(execute(&c) == PTE_OK);
  /* relu(x + y) + x */
  const float *y = (const float *)pte_method_output(c.method, 0)->u.tensor->data;
  for (int k = 0; k < 12; k++) {
    float s = c.data[0][k] + c.data[1][k];
    CHECK(y[k] == (s > 0 ? s : 0) + c.data[0][k]);
  }
  parsed p;
  REQUIRE(parse_etdump(e, &p));
  for (int r = 1; r <= 2; r++) {
    CHECK(count_named(&p, r, "DELEGATE_CALL") == 2);
    CHECK(count_named(&p, r, "OPERATOR_CALL") == 1);
    CHECK(count_named(&p, r, "aten::relu.out") == 1);
    int backend = 0;
    for (int i = 0; i < p.n; i++) {
      const pev *x = &p.ev[i];
      if (x->run != r || x->debug || x->dint < 0) continue;
      backend++;
      CHECK(x->dint == 1 || x->dint == 3);
      /* Inside the DELEGATE_CALL of the same instruction. */
      bool inside = false;
      for (int j = 0; j < p.n; j++) {
        const pev *d = &p.ev[j];
        if (d->run == r && !d->debug && !strcmp(d->name, "DELEGATE_CALL") && d->instruction == x->instruction)
          inside = x->start >= d->start && x->end <= d->end;
      }
      CHECK(inside);
    }
    CHECK(backend == 2);
  }
  check_nesting(&p);
  parsed_free(&p);
  pte_etdump_row rows[8];
  int32_t n = pte_etdump_summary(e, rows, 8);
  CHECK(n == 3); /* relu, the delegate, its add node */
  bool saw_delegate = false;
  for (int32_t i = 0; i < n; i++)
    if (rows[i].kind == PTE_EVENT_DELEGATE) {
      saw_delegate = true;
      CHECK(!strcmp(rows[i].name, "BackendWithCompilerDemo") && rows[i].count == 4);
    }
  CHECK(saw_delegate);
  CHECK(rows[n - 1].kind == PTE_EVENT_BACKEND && rows[n - 1].count == 4);
  /* Delegates' outputs are captured too (trailing args only). */
  const char *dir = path_in(g_work, "delegate_tensors");
  CHECK(pte_etdump_write_debug_tensors(e, dir, 0) == PTE_OK);
  CHECK(file_exists(path_in(dir, "0_BackendWithCompilerDemo_0.npy")));
  CHECK(!file_exists(path_in(dir, "0_BackendWithCompilerDemo_1.npy")));
  unload_run(&c);
  pte_etdump_free(e);
}

/* A multi-output operator: the debugging tracer sees both outputs, once each,
 * though the instruction lists them twice (outs, then the returned list). */
static void test_multi_output(void) {
  REQUIRE(pte_test_delegate_register() == PTE_OK); /* provides aten::max.dim_max */
  pte_etdump_options o = PTE_ETDUMP_OPTIONS_INIT;
  o.debug_buffer_size = 4096;
  pte_etdump *e;
  REQUIRE(pte_etdump_create(&o, &e) == PTE_OK);
  run_ctx c;
  REQUIRE(load_run(&c, "multi_out.pte", pte_etdump_tracer(e)));
  CHECK(execute(&c) == PTE_OK);
  parsed p;
  REQUIRE(parse_etdump(e, &p));
  int n = 0;
  for (int i = 0; i < p.n; i++) {
    const pev *x = &p.ev[i];
    if (!x->debug || x->output) continue;
    CHECK(x->instruction == 0);
    CHECK(x->scalar_type == (n == 0 ? PTE_FLOAT32 : PTE_INT64));
    CHECK(x->dim == 1 && x->sizes[0] == 3);
    n++;
  }
  CHECK(n == 2);
  parsed_free(&p);
  const char *dir = path_in(g_work, "multi_out_tensors");
  CHECK(pte_etdump_write_debug_tensors(e, dir, 0) == PTE_OK);
  CHECK(file_exists(path_in(dir, "0_aten__max.dim_max_0.npy")));
  CHECK(file_exists(path_in(dir, "0_aten__max.dim_max_1.npy")));
  CHECK(!file_exists(path_in(dir, "0_aten__max.dim_max_2.npy")));
  unload_run(&c);
  pte_etdump_free(e);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_etdump CASE [PROGRAMS_DIR [WORK_DIR]]\n");
    return 2;
  }
  if (argc > 2) g_programs = argv[2];
  if (argc > 3) g_work = argv[3];
  mkdir(g_work, 0777);
  if (pte_kernels_portable_register()) {
    fprintf(stderr, "cannot register kernels: %s\n", pte_last_error());
    return 1;
  }
  static const struct {
    const char *name;
    void (*fn)(void);
  } cases[] = {
      {"synthetic", test_synthetic},     {"caller_memory", test_caller_memory}, {"fbb", test_fbb},
      {"mlp_profile", test_mlp_profile}, {"mlp_debug", test_mlp_debug},         {"no_alloc", test_no_alloc},
      {"delegate", test_delegate},       {"multi_output", test_multi_output}};
  int ran = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (!strcmp(argv[1], cases[i].name) || !strcmp(argv[1], "all")) {
      cases[i].fn();
      ran++;
    }
  if (!ran) {
    fprintf(stderr, "unknown case '%s'\n", argv[1]);
    return 2;
  }
  if (g_failures) fprintf(stderr, "%d check(s) failed\n", g_failures);
  return g_failures ? 1 : 0;
}
