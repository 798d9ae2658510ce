/* pterun_bench: the pterun benchmark driver (see bench_driver.h).
 *
 * Linked like the CLI against every component this build produced, so new
 * kernel libraries, backends and the thread pool are picked up as soon as
 * they exist. The thread pool, when there is one, is found at run time
 * (dlsym), so this file compiles with or without it. */
#define _GNU_SOURCE
#include <pterun/runtime.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_driver.h"
#include "pterun_components.h"

struct bench_model {
  pte_data_map *map;
  pte_program *program;
  pte_method *method;
  pte_tensor inputs[BENCH_MAX_IO];
  int num_inputs;
};

static char g_error[1024];

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *pt_error(void) { return g_error; }

static int fail(void) {
  snprintf(g_error, sizeof g_error, "%s", pte_last_error());
  return 1;
}

/* Thread count of libpterun_threadpool, or 0 when it is not loaded. */
static size_t pool_threads(void) {
  size_t (*fn)(void) = NULL;
  *(void **)&fn = dlsym(RTLD_DEFAULT, "pte_threadpool_threads");
  return fn ? fn() : 0;
}

static int pt_init(int threads) {
  if (pterun_register_built_components()) return fail();
  if (threads > 0) {
    pte_status (*set)(size_t) = NULL;
    *(void **)&set = dlsym(RTLD_DEFAULT, "pte_threadpool_set_threads");
    if (set && set((size_t)threads)) return fail();
  }
  return 0;
}

static void pt_info(char *buf, size_t size) {
  size_t n =
      (size_t)snprintf(buf, size,
                       "{\"runtime\": \"pterun\", \"version\": \"%s\", \"components\": \"%s\", "
                       "\"operators\": %d, \"threadpool_threads\": %zu, \"backends\": [",
                       pte_version(), PTERUN_BUILT_COMPONENTS, (int)pte_operator_count(), pool_threads());
  for (int32_t i = 0; i < pte_backend_count() && n < size; i++)
    n += (size_t)snprintf(buf + n, size - n, "%s\"%s\"", i ? ", " : "", pte_backend_name(i));
  if (n < size) snprintf(buf + n, size - n, "]}");
}

static void pt_free(bench_model *m) {
  if (!m) return;
  pte_method_free(m->method);
  pte_program_free(m->program);
  pte_data_map_free(m->map);
  free(m);
}

static int pt_load(const char *pte, const char *ptd, const char *method, const bench_tensor *inputs,
                   int num_inputs, bench_model **out, double *program_ms, double *method_ms) {
  bench_model *m = (bench_model *)calloc(1, sizeof *m);
  if (!m) return snprintf(g_error, sizeof g_error, "out of memory"), 1;
  double t0 = now_ms();
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  if (ptd) {
    if (pte_data_map_load_file(ptd, NULL, &m->map)) goto failed;
    po.data_maps = &m->map;
    po.num_data_maps = 1;
  }
  if (pte_program_load_file(pte, &po, &m->program)) goto failed;
  double t1 = now_ms();
  if (pte_method_load(m->program, method, NULL, &m->method)) goto failed;
  double t2 = now_ms();
  *program_ms = t1 - t0;
  *method_ms = t2 - t1;
  for (int i = 0; i < num_inputs; i++) {
    const bench_tensor *b = &inputs[i];
    if (pte_tensor_init(&m->inputs[i], b->dtype, b->dim, b->sizes, b->data) ||
        pte_method_set_input_tensor(m->method, i, &m->inputs[i]))
      goto failed;
  }
  m->num_inputs = num_inputs;
  *out = m;
  return 0;
failed:
  fail();
  pt_free(m);
  return 1;
}

/* One inference: set the inputs (planned inputs are copied in; the memory
 * plan may reuse their bytes for later values, so a second execute without
 * them would read garbage), then execute. */
static int pt_execute(bench_model *m) {
  for (int i = 0; i < m->num_inputs; i++)
    if (pte_method_set_input_tensor(m->method, i, &m->inputs[i])) return fail();
  return pte_method_execute(m->method) ? fail() : 0;
}

static int pt_num_outputs(bench_model *m) { return (int)pte_method_num_outputs(m->method); }

static int pt_output(bench_model *m, int i, bench_tensor *out) {
  const pte_value *v = pte_method_output(m->method, i);
  if (!v || v->tag != PTE_TAG_TENSOR) {
    snprintf(g_error, sizeof g_error, "output %d is not a tensor", i);
    return 1;
  }
  const pte_tensor *t = v->u.tensor;
  if (!pte_tensor_is_contiguous(t)) {
    snprintf(g_error, sizeof g_error, "output %d is not contiguous", i);
    return 1;
  }
  memset(out, 0, sizeof *out);
  out->dtype = t->dtype;
  out->dim = t->dim;
  for (int d = 0; d < t->dim; d++) out->sizes[d] = t->sizes[d];
  out->data = t->data;
  out->nbytes = pte_tensor_nbytes(t);
  return 0;
}

static const bench_runtime k_pterun = {
    "pterun", pt_init, pt_info, pt_load, pt_execute, pt_num_outputs, pt_output, pt_free, pt_error,
};

int main(int argc, char **argv) { return bench_driver_main(argc, argv, &k_pterun); }
