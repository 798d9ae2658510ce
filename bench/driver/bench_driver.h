/*
 * Benchmark drivers: one small executable per runtime (pterun, ExecuTorch)
 * that loads programs and times `execute` only, driven over stdin/stdout by
 * bench/run.py. The protocol loop, timing, raw tensor files, memory figures
 * and allocation counting are shared (driver_main.c, tests/common/alloc_count.c); each
 * runtime supplies a bench_runtime table.
 *
 * Protocol: one command per line on stdin, fields separated by tabs; one
 * reply line per command, "ok\t..." or "err\t<message>".
 *
 *   info                                  ok <json object>
 *   load ID PTE PTD|- METHOD INPUT...     ok <program_ms> <method_ms>
 *       INPUT = dtype|d0,d1,...|path      raw little-endian C-order bytes
 *   run ID WARMUP ITERS                   ok <allocs> <ns>,<ns>,... <cpu_ns>
 *       allocs: heap allocations made by the timed iterations
 *       cpu_ns: the process's CPU time (all threads) over warm-ups and iterations
 *   outputs ID DIR                        ok <n> dtype|shape ...
 *       executes once and writes output i to DIR/<i>.bin
 *   loadtime REPS PTE PTD|- METHOD        ok <program_ns>,... <method_ns>,...
 *   mem                                   ok <VmHWM kB> <VmRSS kB>
 *   flops ID                              ok <FLOPs of one call> (eager worker only)
 *   free ID                               ok
 *   quit
 */
#ifndef PTERUN_BENCH_DRIVER_H
#define PTERUN_BENCH_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BENCH_MAX_DIM 16
#define BENCH_MAX_IO 16

/* dtype codes are ExecuTorch's ScalarType codes (pterun uses the same). */
typedef struct bench_tensor {
  int32_t dtype;
  int32_t dim;
  int64_t sizes[BENCH_MAX_DIM];
  void *data;
  size_t nbytes;
} bench_tensor;

typedef struct bench_model bench_model; /* a loaded program + method */

typedef struct bench_runtime {
  const char *name;
  /* Once, before any command. threads: 0 = the runtime's default. */
  int (*init)(int threads);
  /* JSON object describing the runtime (version, components, threads). */
  void (*info)(char *buf, size_t size);
  /* Load program (+ .ptd) and method, and set the inputs. The load times
   * exclude setting inputs. Returns 0 on success. */
  int (*load)(const char *pte, const char *ptd, const char *method, const bench_tensor *inputs,
              int num_inputs, bench_model **out, double *program_ms, double *method_ms);
  /* One inference as an application runs it: set the inputs, execute. */
  int (*execute)(bench_model *m);
  int (*num_outputs)(bench_model *m);
  /* Output i as a contiguous tensor (data points into the runtime). */
  int (*output)(bench_model *m, int i, bench_tensor *out);
  void (*free)(bench_model *m);
  /* Message of the last failure. */
  const char *(*error)(void);
} bench_runtime;

/* Runs the protocol loop on stdin/stdout. Options: --threads N. */
int bench_driver_main(int argc, char **argv, const bench_runtime *rt);

/* Element size of a dtype code (0 if unknown). */
size_t bench_dtype_size(int32_t dtype);

/* Heap allocations are counted with tests/common/alloc_count.h. */
#include "../../tests/common/alloc_count.h"

#ifdef __cplusplus
}
#endif

#endif
