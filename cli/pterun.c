/* pterun: inspect and run ExecuTorch programs from the command line.
 *
 *   pterun info model.pte [--data model.ptd] [--json]
 *   pterun run model.pte [--data model.ptd] [--method NAME] [--input a.npy]...
 *              [--output-dir DIR] [--iterations N] [--warmup N] [--library PATH]...
 *              [--profile] [--etdump FILE] [--trace FILE] [--debug-tensors DIR]
 *              [--prefault] [--no-fold]
 *   pterun verify model.bpte [--method NAME] [--rtol R] [--atol A]
 *
 * `run` also takes ExecuTorch's executor_runner flags (--model_path,
 * --data_path, --inputs a.bin,b.bin, --output_file BASE, --num_executions,
 * --method_name, --etdump_path, --cpu_threads, --print_output,
 * --bundleio_rtol/--bundleio_atol), as --flag VALUE or --flag=VALUE; as
 * there, a raw input file holds the tensor's bytes and a .bpte model runs
 * its bundled cases.
 *
 * Uses only the public headers. */
#define _POSIX_C_SOURCE 200809L
#include <pterun/etdump.h>
#include <pterun/kernels_portable.h>
#include <pterun/runtime.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "commands.h"
#include "npy.h"
#include "pterun_components.h"

#define MAX_FILES 64

typedef struct options {
  const char *command;
  const char *model;
  const char *data[MAX_FILES];
  int ndata;
  const char *method;
  const char *inputs[MAX_FILES];
  char *owned_inputs[MAX_FILES]; /* split from --inputs */
  int ninputs;
  const char *libraries[MAX_FILES];
  int nlibraries;
  const char *disabled[MAX_FILES];
  int ndisabled;
  const char *output_dir;
  int iterations;
  int warmup;
  int json;
  int quiet;
  int profile;               /* print the per-operator table */
  int prefault;              /* page the program in at load (PTE_LOAD_PREFAULT) */
  int no_fold;               /* PTE_LOAD_NO_FOLD */
  const char *etdump;        /* write an ETDump file */
  const char *trace;         /* write a Chrome trace */
  const char *debug_tensors; /* write every instruction's outputs here */
  /* executor_runner's flags */
  const char *output_file; /* raw outputs to <output_file>-<i>.bin */
  int print_all;           /* --print_output all: every element */
  int cpu_threads;         /* --threads: >0 resizes the thread pool; -1 leaves it */
  double bundle_rtol, bundle_atol;
} options;

static int fail(const char *what) {
  fprintf(stderr, "pterun: %s%s%s\n", what ? what : "", what ? ": " : "", pte_last_error());
  return 1;
}

/* One usage text per subcommand; `pterun --help` prints them all. */
static const struct {
  const char *command, *text;
} usages[] = {
    {"info", "usage: pterun info MODEL.pte [--data FILE.ptd]... [--json]\n"},
    {"run",
     "usage: pterun run MODEL.pte [--data FILE.ptd]... [--method NAME] [--input FILE.npy]...\n"
     "                  [--output-dir DIR] [--iterations N] [--warmup N] [--threads N]\n"
     "                  [--library PATH]... [--disable KERNEL_LIBRARY]... [--quiet]\n"
     "                  [--profile] [--etdump FILE] [--trace FILE] [--debug-tensors DIR]\n"
     "                  [--prefault] [--no-fold]\n"
     "       pterun run also takes executor_runner's flags: --model_path, --data_path,\n"
     "                  --inputs A,B (raw bytes or .npy), --output_file BASE, --num_executions N,\n"
     "                  --method_name, --etdump_path, --cpu_threads N, --print_output none|summary|all,\n"
     "                  --bundleio_rtol R, --bundleio_atol A (FLAG=VALUE works too)\n"},
    {"verify",
     "usage: pterun verify MODEL.bpte [--method NAME] [--rtol R] [--atol A] [--data FILE.ptd]...\n"
     "                     [--threads N] [--library PATH]... [--disable KERNEL_LIBRARY]...\n"
     "       (rtol 1e-05 and atol 1e-08 unless given: ExecuTorch's defaults)\n"},
    {"generate",
     "usage: pterun generate MODEL.pte --tokenizer FILE --prompt TEXT [--max-new-tokens N]\n"
     "                       [--temperature T] [--top-p P] [--top-k K] [--repetition-penalty R]\n"
     "                       [--seed S] [--data FILE.ptd] [--threads N] [--echo] [--quiet] [--ids]\n"},
    {"operators", "usage: pterun operators   (the registered operators, one a line)\n"},
    {"backends", "usage: pterun backends    (the registered backends, one a line)\n"},
    {"version", "usage: pterun version     (also: pterun --version)\n"},
};

#define THREADS_HELP                                                                                   \
  "--threads N (-t N, --cpu_threads N): the pool's size; default PTERUN_NUM_THREADS, else every CPU\n" \
  "this process may use\n"

void pterun_usage(const char *command, FILE *f) {
  for (size_t i = 0; i < sizeof usages / sizeof usages[0]; i++) {
    if (command && strcmp(command, usages[i].command)) continue;
    const char *t = usages[i].text;
    /* after the first, "usage:" lines line up under the first one's */
    fprintf(f, "%s%s", command || !i ? "" : "      ", command || !i ? t : t + 6);
    if (command) {
      if (strstr(t, "--threads")) fputs(THREADS_HELP, f);
      return;
    }
  }
  if (!command) fputs("       pterun --help | --version | COMMAND --help\n" THREADS_HELP, f);
}

int pterun_usage_error(const char *command, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("pterun: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  pterun_usage(command, stderr);
  return 2;
}

int pterun_is_help(const char *arg) { return !strcmp(arg, "-h") || !strcmp(arg, "--help"); }

int pterun_is_threads_option(const char *arg) {
  return !strcmp(arg, "--threads") || !strcmp(arg, "-t") || !strcmp(arg, "--cpu_threads");
}

int pterun_parse_threads(const char *opt, const char *value, int *threads) {
  char *end;
  long v = value ? strtol(value, &end, 10) : 0;
  if (!value || !*value || *end || v == 0 || v < -1 || v > 4096) {
    fprintf(stderr, "pterun: %s takes a thread count from 1 to 4096 (or -1: the default), not '%s'\n", opt,
            value ? value : "");
    return -1;
  }
  *threads = (int)v;
  return 0;
}

int pterun_pool_threads(void) {
#ifdef PTERUN_HAVE_THREADPOOL
  return (int)pte_threadpool_threads();
#else
  return 1;
#endif
}

int pterun_apply_threads(int threads) {
  if (threads <= 0) return 0;
#ifdef PTERUN_HAVE_THREADPOOL
  if (pte_threadpool_set_threads((size_t)threads)) return fail("--threads");
  return 0;
#else
  fprintf(stderr, "pterun: --threads: this build has no threadpool component\n");
  return 1;
#endif
}

static int parse_args(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->iterations = 1;
  o->warmup = 0;
  o->cpu_threads = -1;
  o->bundle_rtol = o->bundle_atol = 0.01; /* executor_runner's defaults */
  if (argc < 2) return -1;
  o->command = argv[1];
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    /* gflags' --flag=value: the name is compared, the value used in place */
    char name[64];
    const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
    if (eq && (size_t)(eq - a) < sizeof name) {
      memcpy(name, a, (size_t)(eq - a));
      name[eq - a] = 0;
      a = name;
      next = eq + 1;
    } else {
      eq = NULL;
    }
#define NEED_VALUE()                                         \
  if (!next) {                                               \
    fprintf(stderr, "pterun: option %s needs a value\n", a); \
    return -2;                                               \
  }                                                          \
  if (!eq) i++
#define PUSH(arr, n)                                     \
  if (n >= MAX_FILES) {                                  \
    fprintf(stderr, "pterun: too many %s options\n", a); \
    return -2;                                           \
  }                                                      \
  arr[n++] = next
    if (!strcmp(a, "--model_path")) {
      NEED_VALUE();
      o->model = next;
    } else if (!strcmp(a, "--inputs")) { /* comma list; each split off into the input list */
      NEED_VALUE();
      for (const char *p = next; *p;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        if (o->ninputs >= MAX_FILES) {
          fprintf(stderr, "pterun: too many inputs\n");
          return -2;
        }
        char *dup = (char *)malloc(n + 1);
        if (!dup) return -2;
        memcpy(dup, p, n);
        dup[n] = 0;
        o->inputs[o->ninputs] = dup;
        o->owned_inputs[o->ninputs++] = dup;
        p += n + (c ? 1 : 0);
      }
    } else if (!strcmp(a, "--output_file")) {
      NEED_VALUE();
      o->output_file = next;
    } else if (!strcmp(a, "--print_output")) {
      NEED_VALUE();
      if (!strcmp(next, "none")) o->quiet = 1;
      else if (!strcmp(next, "all")) o->print_all = 1;
      else if (strcmp(next, "summary")) {
        fprintf(stderr, "pterun: --print_output takes none, summary or all, not '%s'\n", next);
        return -2;
      }
    } else if (pterun_is_threads_option(a)) {
      NEED_VALUE();
      if (pterun_parse_threads(a, next, &o->cpu_threads)) return -2;
    } else if (!strcmp(a, "--bundleio_rtol") || !strcmp(a, "--bundleio_atol")) {
      NEED_VALUE();
      char *end;
      double v = strtod(next, &end);
      if (*end || !(v >= 0)) {
        fprintf(stderr, "pterun: invalid value '%s' for %s\n", next, a);
        return -2;
      }
      if (a[11] == 'r') o->bundle_rtol = v;
      else o->bundle_atol = v;
    } else if (!strcmp(a, "--server_mode") || !strcmp(a, "--vgf_input_dump_dir") ||
               !strcmp(a, "--dump_vgf_inputs_and_exit")) {
      fprintf(stderr, "pterun: executor_runner's %s is not supported\n", a);
      return -2;
    } else if (!strcmp(a, "--data") || !strcmp(a, "--data_path")) {
      NEED_VALUE();
      PUSH(o->data, o->ndata);
    } else if (!strcmp(a, "--input")) {
      NEED_VALUE();
      PUSH(o->inputs, o->ninputs);
    } else if (!strcmp(a, "--library")) {
      NEED_VALUE();
      PUSH(o->libraries, o->nlibraries);
    } else if (!strcmp(a, "--disable")) {
      NEED_VALUE();
      PUSH(o->disabled, o->ndisabled);
    } else if (!strcmp(a, "--method") || !strcmp(a, "--method_name")) {
      NEED_VALUE();
      o->method = next;
    } else if (!strcmp(a, "--output-dir")) {
      NEED_VALUE();
      o->output_dir = next;
    } else if (!strcmp(a, "--etdump") || !strcmp(a, "--etdump_path")) {
      NEED_VALUE();
      o->etdump = next;
    } else if (!strcmp(a, "--trace")) {
      NEED_VALUE();
      o->trace = next;
    } else if (!strcmp(a, "--debug-tensors")) {
      NEED_VALUE();
      o->debug_tensors = next;
    } else if (!strcmp(a, "--profile")) o->profile = 1;
    else if (!strcmp(a, "--prefault")) o->prefault = 1;
    else if (!strcmp(a, "--no-fold")) o->no_fold = 1;
    else if (!strcmp(a, "--iterations") || !strcmp(a, "--num_executions") || !strcmp(a, "--warmup")) {
      NEED_VALUE();
      char *end;
      long v = strtol(next, &end, 10);
      int warmup = !strcmp(a, "--warmup");
      if (*end || v < 0 || v > 100000000 || (!warmup && v < 1)) {
        fprintf(stderr, "pterun: invalid value '%s' for %s\n", next, a);
        return -2;
      }
      if (!warmup) o->iterations = (int)v;
      else o->warmup = (int)v;
    } else if (!strcmp(a, "--json")) o->json = 1;
    else if (!strcmp(a, "--quiet")) o->quiet = 1;
    else if (pterun_is_help(a)) return -3;
    else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "pterun: unknown option '%s'\n", a);
      return -2;
    } else if (!o->model) o->model = a;
    else {
      fprintf(stderr, "pterun: unexpected argument '%s'\n", a);
      return -2;
    }
  }
  return 0;
}

/* ---- loading ---- */

typedef struct loaded {
  pte_data_map *maps[MAX_FILES];
  int nmaps;
  pte_program *program;
} loaded;

static void unload(loaded *l) {
  pte_program_free(l->program);
  for (int i = 0; i < l->nmaps; i++) pte_data_map_free(l->maps[i]);
}

/* What every command that loads a program sets up first: extra libraries,
 * disabled kernel libraries, the pool's size. */
static int setup(const options *o) {
  for (int i = 0; i < o->nlibraries; i++)
    if (pte_library_load(o->libraries[i])) return fail(NULL);
  for (int i = 0; i < o->ndisabled; i++)
    if (pte_kernel_library_set_enabled(o->disabled[i], false)) return fail(NULL);
  return pterun_apply_threads(o->cpu_threads);
}

static int load_program(const options *o, loaded *l, const pte_tracer *tracer) {
  memset(l, 0, sizeof *l);
  if (!o->model) {
    fprintf(stderr, "pterun: no program given\n");
    return 1;
  }
  for (int i = 0; i < o->ndata; i++) {
    if (pte_data_map_load_file(o->data[i], NULL, &l->maps[i])) return fail(NULL);
    l->nmaps++;
  }
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  po.data_maps = l->maps;
  po.num_data_maps = l->nmaps;
  po.tracer = tracer;
  if (o->prefault) po.flags |= PTE_LOAD_PREFAULT;
  if (o->no_fold) po.flags |= PTE_LOAD_NO_FOLD;
  if (o->debug_tensors) po.flags |= PTE_LOAD_NO_FUSE; /* each instruction's own output */
  if (pte_program_load_file(o->model, &po, &l->program)) {
    unload(l);
    return fail(NULL);
  }
  return 0;
}

/* ---- info ---- */

static void json_str(const char *s) {
  putchar('"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') printf("\\%c", *s);
    else if ((unsigned char)*s < 0x20) printf("\\u%04x", *s);
    else putchar(*s);
  }
  putchar('"');
}

static void print_io(const pte_io_info *io, int json) {
  if (io->tag != PTE_TAG_TENSOR) {
    if (json) printf("{\"kind\": \"%s\"}", pte_tag_name(io->tag));
    else printf("%s", pte_tag_name(io->tag));
    return;
  }
  char shape[256];
  pte_shape_str(io->dim, io->sizes, shape, sizeof shape);
  const char *dyn = io->dynamism == PTE_SHAPE_STATIC ? "static" : "dynamic_bound";
  if (json)
    printf(
        "{\"kind\": \"Tensor\", \"dtype\": \"%s\", \"shape\": %s, \"dynamism\": \"%s\", \"planned\": %s, "
        "\"nbytes\": %zu}",
        pte_dtype_name(io->dtype), shape, dyn, io->planned ? "true" : "false", io->nbytes);
  else
    printf("%s%s%s%s", pte_dtype_name(io->dtype), shape, io->dynamism ? " (dynamic, upper bounds)" : "",
           io->planned ? "" : " (unplanned)");
}

static int cmd_info(const options *o) {
  loaded l;
  if (setup(o) || load_program(o, &l, NULL)) return 1;
  int32_t n = pte_program_method_count(l.program);
  if (o->json) printf("{\"program\": "), json_str(o->model), printf(", \"methods\": [");
  else printf("program: %s\nmethods: %d\n", o->model, (int)n);
  int rc = 0;
  for (int32_t m = 0; m < n && !rc; m++) {
    const char *name = pte_program_method_name(l.program, m);
    pte_method_info mi;
    if (pte_program_method_info(l.program, name, &mi)) {
      rc = fail(NULL);
      break;
    }
    if (o->json) {
      printf("%s{\"name\": ", m ? ", " : "");
      json_str(name);
      printf(", \"instructions\": %d, \"values\": %d, \"planned_buffers\": [", (int)mi.num_instructions,
             (int)mi.num_values);
    } else {
      printf("\nmethod '%s': %d instructions, %d values\n  planned memory: %lld bytes in %d buffer(s)", name,
             (int)mi.num_instructions, (int)mi.num_values, (long long)mi.planned_bytes,
             (int)mi.num_planned_buffers);
    }
    for (int32_t b = 0; b < mi.num_planned_buffers; b++) {
      int64_t s = 0;
      pte_program_method_planned_size(l.program, name, b, &s);
      printf(o->json ? "%s%lld" : "%s%lld", b ? ", " : (o->json ? "" : " ["), (long long)s);
    }
    if (!o->json) printf("%s\n", mi.num_planned_buffers ? "]" : "");
    if (o->json) printf("], \"planned_bytes\": %lld, \"inputs\": [", (long long)mi.planned_bytes);
    for (int io = 0; io < 2 && !rc; io++) {
      int32_t count = io ? mi.num_outputs : mi.num_inputs;
      if (o->json && io) printf("], \"outputs\": [");
      for (int32_t i = 0; i < count; i++) {
        pte_io_info info;
        pte_status st = io ? pte_program_method_output(l.program, name, i, &info)
                           : pte_program_method_input(l.program, name, i, &info);
        if (st) {
          rc = fail(NULL);
          break;
        }
        if (o->json) printf("%s", i ? ", " : "");
        else printf("  %s %d: ", io ? "output" : "input", (int)i);
        print_io(&info, o->json);
        if (!o->json) printf("\n");
      }
    }
    if (rc) break;
    if (o->json) printf("], \"operators\": [");
    else printf("  operators (%d):\n", (int)mi.num_operators);
    for (int32_t i = 0; i < mi.num_operators; i++) {
      const char *on, *ov;
      if (pte_program_method_operator(l.program, name, i, &on, &ov)) {
        rc = fail(NULL);
        break;
      }
      char full[512];
      snprintf(full, sizeof full, "%s%s%s", on, ov[0] ? "." : "", ov);
      if (o->json) {
        printf("%s{\"name\": ", i ? ", " : "");
        json_str(full);
        printf(", \"registered\": %s}", pte_operator_registered(full) ? "true" : "false");
      } else {
        printf("    %s%s\n", full, pte_operator_registered(full) ? "" : "  (not registered)");
      }
    }
    if (o->json) printf("], \"delegates\": [");
    else printf("  delegates (%d):\n", (int)mi.num_delegates);
    for (int32_t i = 0; i < mi.num_delegates; i++) {
      const char *id;
      if (pte_program_method_delegate(l.program, name, i, &id)) {
        rc = fail(NULL);
        break;
      }
      if (o->json) {
        printf("%s{\"backend\": ", i ? ", " : "");
        json_str(id);
        printf(", \"registered\": %s}", pte_backend_find(id) ? "true" : "false");
      } else {
        printf("    %s%s\n", id, pte_backend_find(id) ? "" : "  (not registered)");
      }
    }
    if (o->json) printf("]}");
  }
  if (o->json && !rc) printf("]}\n");
  unload(&l);
  return rc;
}

/* ---- run ---- */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Deterministic inputs when none are given: floats in [-1, 1), integers 0. */
static void fill_generated(pte_tensor *t, uint64_t seed) {
  int64_t n = pte_tensor_numel(t);
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (int64_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double r = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    if (t->dtype == PTE_FLOAT32) ((float *)t->data)[i] = (float)r;
    else if (t->dtype == PTE_FLOAT64) ((double *)t->data)[i] = r;
  }
  if (t->dtype != PTE_FLOAT32 && t->dtype != PTE_FLOAT64) memset(t->data, 0, pte_tensor_nbytes(t));
}

static void print_value(int32_t i, const pte_value *v, int all) {
  if (v->tag != PTE_TAG_TENSOR) {
    if (v->tag == PTE_TAG_INT) printf("output %d: Int %lld\n", (int)i, (long long)v->u.i);
    else if (v->tag == PTE_TAG_DOUBLE) printf("output %d: Double %g\n", (int)i, v->u.d);
    else if (v->tag == PTE_TAG_BOOL) printf("output %d: Bool %d\n", (int)i, (int)v->u.b);
    else printf("output %d: %s\n", (int)i, pte_tag_name(v->tag));
    return;
  }
  const pte_tensor *t = v->u.tensor;
  char shape[256];
  pte_shape_str(t->dim, t->sizes, shape, sizeof shape);
  printf("output %d: %s %s [", (int)i, pte_dtype_name(t->dtype), shape);
  int64_t n = pte_tensor_numel(t);
  int64_t shown = all ? n : 8;
  for (int64_t k = 0; k < n && k < shown && t->data; k++) {
    if (k) printf(", ");
    switch (t->dtype) {
      case PTE_FLOAT32: printf("%.6g", ((const float *)t->data)[k]); break;
      case PTE_FLOAT64: printf("%.6g", ((const double *)t->data)[k]); break;
      case PTE_INT64: printf("%lld", (long long)((const int64_t *)t->data)[k]); break;
      case PTE_INT32: printf("%d", ((const int32_t *)t->data)[k]); break;
      case PTE_BOOL: printf("%s", ((const uint8_t *)t->data)[k] ? "True" : "False"); break;
      default: printf("?"); break;
    }
  }
  printf("%s]\n", n > shown ? ", ..." : "");
}

/* ---- profiling (--profile, --etdump, --trace, --debug-tensors) ---- */

static pte_etdump *profiler_create(const options *o) {
  pte_etdump_options eo = PTE_ETDUMP_OPTIONS_INIT;
  eo.max_events = 1 << 20;
  pte_etdump *e = NULL;
  if (o->debug_tensors) {
    /* Only one execute is captured, but its intermediates can add up to far
     * more than the planned memory they share; untouched pages cost nothing. */
    for (size_t mb = 1024; mb >= 64 && !e; mb /= 4) {
      eo.debug_buffer_size = mb << 20;
      eo.max_debug_values = 1 << 18;
      if (pte_etdump_create(&eo, &e)) e = NULL;
    }
  } else if (pte_etdump_create(&eo, &e)) {
    e = NULL;
  }
  if (!e) fail("profiler");
  return e;
}

static int profiler_finish(const options *o, pte_etdump *e) {
  pte_etdump_stats s;
  pte_etdump_get_stats(e, &s);
  char path[4096];
  if (o->debug_tensors) {
    if (pte_etdump_write_debug_tensors(e, o->debug_tensors, 0)) return fail("--debug-tensors");
    if (!o->quiet)
      printf("debug tensors: %lld values in %s/ (index.json)\n", (long long)s.debug_values, o->debug_tensors);
  }
  if (o->etdump) {
    snprintf(path, sizeof path, "%s/debug_buffer.bin", o->debug_tensors ? o->debug_tensors : ".");
    if (pte_etdump_write(e, o->etdump, o->debug_tensors ? path : NULL)) return fail("--etdump");
    if (!o->quiet) {
      printf("etdump: %s (%lld events)", o->etdump, (long long)s.events);
      if (o->debug_tensors) printf("; debug buffer: %s", path);
      printf("\n");
    }
  }
  if (o->trace) {
    if (pte_etdump_write_trace(e, o->trace)) return fail("--trace");
    if (!o->quiet) printf("trace: %s\n", o->trace);
  }
  if (o->profile) {
    size_t n = pte_etdump_table(e, NULL, 0);
    char *t = (char *)malloc(n + 1);
    if (!t) return fail("--profile");
    pte_etdump_table(e, t, n + 1);
    fputs(t, stdout);
    free(t);
  }
  if (s.dropped_events || s.dropped_debug_values)
    fprintf(stderr, "pterun: warning: the profiler dropped %lld events and %lld values (buffers full)\n",
            (long long)s.dropped_events, (long long)s.dropped_debug_values);
  return 0;
}

/* executor_runner's input files: the tensor's bytes, nothing else. */
static int is_npy(const char *path) {
  size_t n = strlen(path);
  return n >= 4 && !strcmp(path + n - 4, ".npy");
}

static pte_status read_raw(const char *path, size_t want, void **out) {
  FILE *f = fopen(path, "rb");
  if (!f) return pte_error(PTE_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  *out = malloc(want ? want : 1);
  size_t got = *out ? fread(*out, 1, want, f) : 0;
  int extra = fgetc(f) != EOF;
  fclose(f);
  if (!*out) return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory for %s", path);
  if (got != want || extra)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "%s: the input takes %zu bytes, the file holds %s%zu", path,
                     want, extra ? "more than " : "", got);
  return PTE_OK;
}

/* executor_runner's --output_file: <base>-<i>.bin, the tensor's bytes, row-major. */
static pte_status write_raw(const char *base, int32_t i, const pte_tensor *t) {
  char path[4096];
  snprintf(path, sizeof path, "%s-%d.bin", base, (int)i);
  size_t n = pte_tensor_nbytes(t);
  void *buf = malloc(n ? n : 1);
  if (!buf) return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory writing %s", path);
  pte_tensor dst;
  pte_status st = pte_tensor_init(&dst, t->dtype, t->dim, t->sizes, buf);
  if (!st && n) st = pte_tensor_copy(&dst, t);
  FILE *f = st ? NULL : fopen(path, "wb");
  if (!st && (!f || fwrite(buf, 1, n, f) != n)) st = pte_error(PTE_ERR_IO, "cannot write %s", path);
  if (f && fclose(f) && !st) st = pte_error(PTE_ERR_IO, "cannot write %s", path);
  free(buf);
  return st;
}

/* A .bpte given to `run` (executor_runner's bundled IO): its cases, checked. */
static int is_bundle(const char *path) {
  unsigned char head[8];
  FILE *f = path ? fopen(path, "rb") : NULL;
  size_t n = f ? fread(head, 1, sizeof head, f) : 0;
  if (f) fclose(f);
  return n == sizeof head && !memcmp(head + 4, "BP08", 4);
}

static int cmd_run(const options *o) {
  if (setup(o)) return 1;
  if (is_bundle(o->model))
    return pterun_verify_bundle(o->model, o->method, o->bundle_rtol, o->bundle_atol, o->data, o->ndata);
  pte_etdump *prof = NULL;
  if (o->profile || o->etdump || o->trace || o->debug_tensors) {
    if (!(prof = profiler_create(o))) return 1;
  }
  loaded l;
  if (load_program(o, &l, pte_etdump_tracer(prof))) {
    pte_etdump_free(prof);
    return 1;
  }
  const char *method = o->method ? o->method : pte_program_method_name(l.program, 0);
  pte_method *m = NULL;
  void *owned[MAX_FILES] = {0};
  void *generated[MAX_FILES] = {0};
  pte_tensor tensors[MAX_FILES];
  double *times = NULL;
  int rc = 0;
  double t0 = now_ms();
  pte_method_options mo = PTE_METHOD_OPTIONS_INIT;
  mo.tracer = pte_etdump_tracer(prof);
  if (pte_method_load(l.program, method, &mo, &m)) {
    rc = fail(NULL);
    goto done;
  }
  double load_ms = now_ms() - t0;
  if (o->profile && pte_method_num_folded(m)) { /* they do not appear in the table */
    printf("folded at load: %d instruction(s):", (int)pte_method_num_folded(m));
    for (int32_t i = 0, k = 0; k < pte_method_num_folded(m); i++) {
      const char *fn = pte_method_instruction_folded(m, i);
      if (fn) printf("%s %d (%s)", k++ ? "," : "", (int)i, fn);
    }
    printf("\n");
  }
  if (o->profile && pte_method_num_prepared(m)) /* e.g. constant weights packed once */
    printf("prepared at load: %d instruction(s)\n", (int)pte_method_num_prepared(m));
  int32_t nin = pte_method_num_inputs(m);
  if (o->ninputs && o->ninputs != nin) {
    fprintf(stderr, "pterun: method '%s' takes %d inputs, %d were given\n", method, (int)nin, o->ninputs);
    rc = 1;
    goto done;
  }
  if (nin > MAX_FILES) {
    fprintf(stderr, "pterun: method '%s' has too many inputs (%d)\n", method, (int)nin);
    rc = 1;
    goto done;
  }
  for (int32_t i = 0; i < nin; i++) {
    pte_io_info info;
    if (pte_program_method_input(l.program, method, i, &info)) {
      rc = fail(NULL);
      goto done;
    }
    if (o->ninputs && !is_npy(o->inputs[i])) {
      if (info.tag != PTE_TAG_TENSOR || read_raw(o->inputs[i], info.nbytes, &owned[i])) {
        if (info.tag != PTE_TAG_TENSOR)
          pte_error(PTE_ERR_INVALID_ARGUMENT, "input %d is a %s", (int)i, pte_tag_name(info.tag));
        rc = fail("input");
        goto done;
      }
      pte_tensor_init(&tensors[i], info.dtype, info.dim, info.sizes, owned[i]);
    } else if (o->ninputs) {
      npy_array a;
      if (npy_read_file(o->inputs[i], &a, &owned[i])) {
        rc = fail("input");
        goto done;
      }
      pte_tensor_init(&tensors[i], a.dtype, a.dim, a.sizes, (void *)a.data);
    } else {
      if (info.tag != PTE_TAG_TENSOR) {
        fprintf(stderr, "pterun: input %d is a %s; pass inputs with --input\n", (int)i,
                pte_tag_name(info.tag));
        rc = 1;
        goto done;
      }
      generated[i] = calloc(1, info.nbytes ? info.nbytes : 1);
      if (!generated[i]) {
        fprintf(stderr, "pterun: out of memory\n");
        rc = 1;
        goto done;
      }
      pte_tensor_init(&tensors[i], info.dtype, info.dim, info.sizes, generated[i]);
      fill_generated(&tensors[i], (uint64_t)i + 1);
    }
    if (pte_method_set_input_tensor(m, i, &tensors[i])) {
      rc = fail(NULL);
      goto done;
    }
  }
  pte_method_set_tracer(m, NULL); /* warmup runs are not profiled */
  times = (double *)malloc(sizeof(double) * (size_t)o->iterations);
  if (!times) {
    fprintf(stderr, "pterun: out of memory\n");
    rc = 1;
    goto done;
  }
  /* Inputs are set again before every run (the planner may reuse an input's
   * memory once it is consumed); a latency sample covers both. */
  for (int it = -o->warmup; it < o->iterations; it++) {
    if (it == 0) pte_method_set_tracer(m, prof ? pte_etdump_tracer(prof) : NULL);
    double s = now_ms();
    for (int32_t i = 0; it > -o->warmup && i < nin; i++)
      if (pte_method_set_input_tensor(m, i, &tensors[i])) {
        rc = fail(NULL);
        goto done;
      }
    if (pte_method_execute(m)) {
      rc = fail(NULL);
      goto done;
    }
    if (it >= 0) times[it] = now_ms() - s;
    if (it >= 0 && prof && o->debug_tensors) pte_etdump_set_capture(prof, false); /* one captured execute */
  }
  int32_t nout = pte_method_num_outputs(m);
  if (o->output_dir) {
    /* mkdir alone (EEXIST): stat is a glibc 2.33 symbol (cmake/glibc_baseline.py) */
    if (mkdir(o->output_dir, 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "pterun: cannot create '%s': %s\n", o->output_dir, strerror(errno));
      rc = 1;
      goto done;
    }
  }
  for (int32_t i = 0; i < nout; i++) {
    const pte_value *v = pte_method_output(m, i);
    if (!o->quiet) print_value(i, v, o->print_all);
    if (o->output_file && v->tag == PTE_TAG_TENSOR && write_raw(o->output_file, i, v->u.tensor)) {
      rc = fail(NULL);
      goto done;
    }
    if (o->output_dir) {
      if (v->tag != PTE_TAG_TENSOR) {
        fprintf(stderr, "pterun: output %d is a %s; only tensors are written\n", (int)i,
                pte_tag_name(v->tag));
        continue;
      }
      char path[4096];
      snprintf(path, sizeof path, "%s/output_%d.npy", o->output_dir, (int)i);
      if (npy_write_file(path, v->u.tensor)) {
        rc = fail(NULL);
        goto done;
      }
    }
  }
  qsort(times, (size_t)o->iterations, sizeof(double), cmp_double);
  if (!o->quiet)
    printf(
        "method '%s': load %.3f ms; %d iteration(s): min %.3f ms, median %.3f ms, max %.3f ms; %d "
        "thread(s)\n",
        method, load_ms, o->iterations, times[0], times[o->iterations / 2], times[o->iterations - 1],
        pterun_pool_threads());
  if (prof && profiler_finish(o, prof)) rc = 1;
done:
  free(times);
  for (int i = 0; i < MAX_FILES; i++) {
    free(owned[i]);
    free(generated[i]);
  }
  pte_method_free(m);
  unload(&l);
  pte_etdump_free(prof);
  return rc;
}

/* Commands that parse their own arguments (each in its own file). */
static const struct {
  const char *name;
  pterun_command_fn run;
} commands[] = {
    {"verify", pterun_cmd_verify},
    {"generate", pterun_cmd_generate},
};

static int is_command(const char *name) {
  for (size_t i = 0; i < sizeof usages / sizeof usages[0]; i++)
    if (!strcmp(name, usages[i].command)) return 1;
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && (pterun_is_help(argv[1]) || !strcmp(argv[1], "help"))) {
    const char *topic = argc >= 3 && strcmp(argv[1], "help") == 0 ? argv[2] : NULL;
    if (topic && !is_command(topic)) {
      fprintf(stderr, "pterun: no help on '%s': not a command\n", topic);
      pterun_usage(NULL, stderr);
      return 2;
    }
    pterun_usage(topic, stdout);
    return 0;
  }
  if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))) {
    if (argc > 2 && pterun_is_help(argv[2])) pterun_usage("version", stdout);
    else printf("pterun %s\n", pte_version());
    return 0;
  }
  if (argc >= 2) {
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
      if (strcmp(argv[1], commands[i].name)) continue;
      if (pterun_register_built_components()) return fail("registering components");
      return commands[i].run(argc, argv);
    }
  }
  if (argc >= 2 && !is_command(argv[1])) {
    fprintf(stderr, "pterun: unknown command '%s'\n", argv[1]);
    pterun_usage(NULL, stderr);
    return 2;
  }
  options o;
  int pr = parse_args(argc, argv, &o);
  if (pr == -1) {
    pterun_usage(NULL, stderr);
    return 2;
  }
  if (pr == -3) { /* -h/--help anywhere among the command's options */
    for (int i = 0; i < o.ninputs; i++) free(o.owned_inputs[i]);
    pterun_usage(o.command, stdout);
    return 0;
  }
  if (pr) { /* the message is out: the usage follows it */
    for (int i = 0; i < o.ninputs; i++) free(o.owned_inputs[i]);
    pterun_usage(o.command, stderr);
    return 2;
  }
  if (pterun_register_built_components()) return fail("registering components");
  if (!strcmp(o.command, "info")) return cmd_info(&o);
  if (!strcmp(o.command, "run")) {
    int rc = cmd_run(&o);
    for (int i = 0; i < o.ninputs; i++) free(o.owned_inputs[i]);
    return rc;
  }
  if (!strcmp(o.command, "operators")) {
    for (int32_t i = 0; i < pte_operator_count(); i++) printf("%s\n", pte_operator_name(i));
    return 0;
  }
  if (!strcmp(o.command, "backends")) {
    for (int32_t i = 0; i < pte_backend_count(); i++) printf("%s\n", pte_backend_name(i));
    return 0;
  }
  return 2; /* not reached: every command in usages[] is handled above */
}
