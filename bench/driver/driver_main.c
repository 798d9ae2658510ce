/* The protocol loop shared by the benchmark drivers (see bench_driver.h). */
#define _POSIX_C_SOURCE 200809L
#include "bench_driver.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_MODELS 64
#define MAX_FIELDS (8 + BENCH_MAX_IO)

typedef struct slot {
  char id[64];
  bench_model *model;
  bench_tensor inputs[BENCH_MAX_IO];
  int num_inputs;
} slot;

static slot g_slots[MAX_MODELS];

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CPU time of the whole process (every thread), to the nanosecond: /proc's
 * clock ticks (10 ms) are too coarse for rounds of a few 10 ms calls. */
static int64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

size_t bench_dtype_size(int32_t dtype) {
  switch (dtype) {
    case 0:
    case 1:
    case 11: return 1; /* uint8, int8, bool */
    case 2:
    case 5:
    case 15: return 2; /* int16, float16, bfloat16 */
    case 3:
    case 6: return 4; /* int32, float32 */
    case 4:
    case 7: return 8; /* int64, float64 */
    default: return 0;
  }
}

static const struct {
  const char *name;
  int32_t code;
} k_dtypes[] = {
    {"uint8", 0},   {"int8", 1},    {"int16", 2},   {"int32", 3}, {"int64", 4},
    {"float16", 5}, {"float32", 6}, {"float64", 7}, {"bool", 11},
};

static int32_t dtype_code(const char *name) {
  for (size_t i = 0; i < sizeof k_dtypes / sizeof k_dtypes[0]; i++)
    if (!strcmp(k_dtypes[i].name, name)) return k_dtypes[i].code;
  return -1;
}

static const char *dtype_name(int32_t code) {
  for (size_t i = 0; i < sizeof k_dtypes / sizeof k_dtypes[0]; i++)
    if (k_dtypes[i].code == code) return k_dtypes[i].name;
  return "unknown";
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void
reply_err(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("err\t");
  vprintf(fmt, ap);
  printf("\n");
  fflush(stdout);
  va_end(ap);
}

/* Reply with an error and leave the command handler. */
#define FAIL(...)           \
  do {                      \
    reply_err(__VA_ARGS__); \
    return;                 \
  } while (0)

/* Reads VmHWM and VmRSS (kB) from /proc/self/status. */
static void read_mem(long *hwm, long *rss) {
  *hwm = *rss = -1;
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return;
  char line[256];
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "VmHWM:", 6)) *hwm = strtol(line + 6, NULL, 10);
    else if (!strncmp(line, "VmRSS:", 6)) *rss = strtol(line + 6, NULL, 10);
  }
  fclose(f);
}

static slot *find_slot(const char *id) {
  for (int i = 0; i < MAX_MODELS; i++)
    if (g_slots[i].model && !strcmp(g_slots[i].id, id)) return &g_slots[i];
  return NULL;
}

static void free_inputs(bench_tensor *ins, int n) {
  for (int i = 0; i < n; i++) {
    free(ins[i].data);
    ins[i].data = NULL;
  }
}

/* INPUT = dtype|d0,d1,...|path (an empty shape is a 0-d tensor). */
static int parse_input(char *spec, bench_tensor *t) {
  memset(t, 0, sizeof *t);
  char *bar1 = strchr(spec, '|');
  char *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
  if (!bar2) {
    reply_err("malformed input spec '%s'", spec);
    return -1;
  }
  *bar1 = *bar2 = 0;
  t->dtype = dtype_code(spec);
  if (t->dtype < 0) {
    reply_err("unknown dtype '%s'", spec);
    return -1;
  }
  size_t numel = 1;
  for (char *p = bar1 + 1; *p;) {
    if (t->dim == BENCH_MAX_DIM) {
      reply_err("too many dimensions in '%s'", bar1 + 1);
      return -1;
    }
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 0) {
      reply_err("bad shape '%s'", bar1 + 1);
      return -1;
    }
    t->sizes[t->dim++] = v;
    numel *= (size_t)v;
    p = *end == ',' ? end + 1 : end;
  }
  t->nbytes = numel * bench_dtype_size(t->dtype);
  t->data = malloc(t->nbytes ? t->nbytes : 1);
  FILE *f = fopen(bar2 + 1, "rb");
  if (!t->data || !f || fread(t->data, 1, t->nbytes, f) != t->nbytes) {
    if (f) fclose(f);
    free(t->data);
    t->data = NULL;
    reply_err("cannot read %s", bar2 + 1);
    return -1;
  }
  fclose(f);
  return 0;
}

static void cmd_load(const bench_runtime *rt, char **f, int n) {
  if (n < 5) FAIL("%s", "usage: load ID PTE PTD|- METHOD INPUT...");
  if (find_slot(f[1])) FAIL("model '%s' is already loaded", f[1]);
  slot *s = NULL;
  for (int i = 0; i < MAX_MODELS && !s; i++)
    if (!g_slots[i].model) s = &g_slots[i];
  if (!s) FAIL("%s", "too many models loaded");
  if (n - 5 > BENCH_MAX_IO) FAIL("%s", "too many inputs");
  bench_tensor ins[BENCH_MAX_IO];
  int nin = 0;
  for (int i = 5; i < n; i++, nin++)
    if (parse_input(f[i], &ins[nin])) {
      free_inputs(ins, nin);
      return;
    }
  double prog_ms = 0, meth_ms = 0;
  bench_model *m = NULL;
  const char *ptd = strcmp(f[3], "-") ? f[3] : NULL;
  if (rt->load(f[2], ptd, f[4], ins, nin, &m, &prog_ms, &meth_ms)) {
    free_inputs(ins, nin);
    FAIL("%s", rt->error());
  }
  snprintf(s->id, sizeof s->id, "%s", f[1]);
  s->model = m;
  memcpy(s->inputs, ins, sizeof ins);
  s->num_inputs = nin;
  printf("ok\t%.6f\t%.6f\n", prog_ms, meth_ms);
  fflush(stdout);
}

static void cmd_run(const bench_runtime *rt, char **f, int n) {
  if (n != 4) FAIL("%s", "usage: run ID WARMUP ITERS");
  slot *s = find_slot(f[1]);
  if (!s) FAIL("no model '%s'", f[1]);
  long warmup = strtol(f[2], NULL, 10), iters = strtol(f[3], NULL, 10);
  if (warmup < 0 || iters < 1 || iters > 100000000) FAIL("%s", "bad iteration counts");
  int64_t *times = (int64_t *)malloc(sizeof(int64_t) * (size_t)iters);
  if (!times) FAIL("%s", "out of memory");
  int64_t cpu0 = cpu_ns();
  for (long i = 0; i < warmup; i++)
    if (rt->execute(s->model)) {
      free(times);
      FAIL("%s", rt->error());
    }
  alloc_count_start();
  for (long i = 0; i < iters; i++) {
    int64_t t0 = now_ns();
    if (rt->execute(s->model)) {
      alloc_count_stop();
      free(times);
      FAIL("%s", rt->error());
    }
    times[i] = now_ns() - t0;
  }
  long allocs = alloc_count_stop();
  int64_t cpu = cpu_ns() - cpu0;
  printf("ok\t%ld\t", allocs);
  for (long i = 0; i < iters; i++) printf(i ? ",%lld" : "%lld", (long long)times[i]);
  printf("\t%lld\n", (long long)cpu);
  fflush(stdout);
  free(times);
}

static void cmd_outputs(const bench_runtime *rt, char **f, int n) {
  if (n != 3) FAIL("%s", "usage: outputs ID DIR");
  slot *s = find_slot(f[1]);
  if (!s) FAIL("no model '%s'", f[1]);
  if (rt->execute(s->model)) FAIL("%s", rt->error());
  int nout = rt->num_outputs(s->model);
  char reply[8192];
  size_t used = (size_t)snprintf(reply, sizeof reply, "ok\t%d", nout);
  for (int i = 0; i < nout; i++) {
    bench_tensor t;
    if (rt->output(s->model, i, &t)) FAIL("%s", rt->error());
    char path[4096];
    snprintf(path, sizeof path, "%s/%d.bin", f[2], i);
    FILE *out = fopen(path, "wb");
    if (!out || fwrite(t.data, 1, t.nbytes, out) != t.nbytes) {
      if (out) fclose(out);
      FAIL("cannot write %s", path);
    }
    fclose(out);
    used += (size_t)snprintf(reply + used, sizeof reply - used, "\t%s|", dtype_name(t.dtype));
    for (int d = 0; d < t.dim && used < sizeof reply; d++)
      used +=
          (size_t)snprintf(reply + used, sizeof reply - used, d ? ",%lld" : "%lld", (long long)t.sizes[d]);
    if (used >= sizeof reply) FAIL("%s", "reply too long");
  }
  printf("%s\n", reply);
  fflush(stdout);
}

static void cmd_loadtime(const bench_runtime *rt, char **f, int n) {
  if (n != 5) FAIL("%s", "usage: loadtime REPS PTE PTD|- METHOD");
  long reps = strtol(f[1], NULL, 10);
  if (reps < 1 || reps > 100000) FAIL("%s", "bad repetition count");
  double *pt = (double *)malloc(sizeof(double) * (size_t)reps * 2);
  if (!pt) FAIL("%s", "out of memory");
  double *mt = pt + reps;
  const char *ptd = strcmp(f[3], "-") ? f[3] : NULL;
  for (long r = 0; r < reps; r++) {
    bench_model *m = NULL;
    if (rt->load(f[2], ptd, f[4], NULL, 0, &m, &pt[r], &mt[r])) {
      free(pt);
      FAIL("%s", rt->error());
    }
    rt->free(m);
  }
  printf("ok\t");
  for (long r = 0; r < reps; r++) printf(r ? ",%.0f" : "%.0f", pt[r] * 1e6);
  printf("\t");
  for (long r = 0; r < reps; r++) printf(r ? ",%.0f" : "%.0f", mt[r] * 1e6);
  printf("\n");
  fflush(stdout);
  free(pt);
}

static void cmd_free(const bench_runtime *rt, char **f, int n) {
  slot *s = n == 2 ? find_slot(f[1]) : NULL;
  if (!s) FAIL("no model '%s'", n == 2 ? f[1] : "");
  rt->free(s->model);
  free_inputs(s->inputs, s->num_inputs);
  memset(s, 0, sizeof *s);
  printf("ok\n");
  fflush(stdout);
}

int bench_driver_main(int argc, char **argv, const bench_runtime *rt) {
  int threads = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: %s [--threads N]  (commands on stdin, see bench_driver.h)\n", argv[0]);
      return 2;
    }
  }
  if (rt->init(threads)) {
    fprintf(stderr, "%s: init failed: %s\n", rt->name, rt->error());
    return 1;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, stdin)) > 0) {
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
    char *f[MAX_FIELDS];
    int n = 0;
    for (char *p = line; n < MAX_FIELDS;) {
      f[n++] = p;
      char *tab = strchr(p, '\t');
      if (!tab) break;
      *tab = 0;
      p = tab + 1;
    }
    if (!strcmp(f[0], "quit")) break;
    else if (!strcmp(f[0], "info")) {
      char buf[8192];
      rt->info(buf, sizeof buf);
      printf("ok\t%s\n", buf);
      fflush(stdout);
    } else if (!strcmp(f[0], "load")) cmd_load(rt, f, n);
    else if (!strcmp(f[0], "run")) cmd_run(rt, f, n);
    else if (!strcmp(f[0], "outputs")) cmd_outputs(rt, f, n);
    else if (!strcmp(f[0], "loadtime")) cmd_loadtime(rt, f, n);
    else if (!strcmp(f[0], "free")) cmd_free(rt, f, n);
    else if (!strcmp(f[0], "mem")) {
      long hwm, rss;
      read_mem(&hwm, &rss);
      printf("ok\t%ld\t%ld\n", hwm, rss);
      fflush(stdout);
    } else {
      reply_err("unknown command '%s'", f[0]);
    }
  }
  free(line);
  for (int i = 0; i < MAX_MODELS; i++)
    if (g_slots[i].model) {
      rt->free(g_slots[i].model);
      free_inputs(g_slots[i].inputs, g_slots[i].num_inputs);
    }
  return 0;
}
