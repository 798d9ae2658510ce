/* Runs an untrusted program as far as it goes: load, every method, zero
 * inputs, execute. Shared by the hostile-input tests and the fuzzers. */
#ifndef PTERUN_EXERCISE_H
#define PTERUN_EXERCISE_H

#include <pterun/runtime.h>

typedef struct pte_exercise_stats {
  long loaded, rejected, ran, failed_at_run;
} pte_exercise_stats;

/* Optional .ptd attached to every exercised program. */
extern pte_data_map *g_exercise_map;

/* Allocations above this are refused, as a hostile size field would ask. */
#define PTE_EXERCISE_CAP (64u << 20)

void pte_exercise(const uint8_t *buf, size_t size, pte_exercise_stats *s);

#endif
