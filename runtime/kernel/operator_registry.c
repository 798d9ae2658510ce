/* The process-wide operator registry: a sorted table of (operator, kernel,
 * library) entries in static storage, so registration needs no heap. */
#include "../core/internal.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifndef PTE_MAX_KERNELS
#define PTE_MAX_KERNELS 4096
#endif
#ifndef PTE_MAX_KERNEL_LIBRARIES
#define PTE_MAX_KERNEL_LIBRARIES 64
#endif

typedef struct entry {
  const char *name;
  const pte_kernel *kernel;
  const pte_kernel_library *lib;
} entry;

/* Sorted by name, then by descending priority. */
static entry g_entries[PTE_MAX_KERNELS];
static int32_t g_num_entries;
static const pte_kernel_library *g_libs[PTE_MAX_KERNEL_LIBRARIES];
static bool g_disabled[PTE_MAX_KERNEL_LIBRARIES];
static int32_t g_num_libs;
static int32_t g_num_names; /* distinct names */
static pthread_once_t g_prims_once = PTHREAD_ONCE_INIT;

static pte_status do_register(const pte_kernel_library *lib);
static void register_prims(void) { (void)do_register(pte_prim_ops_library()); }
/* The runtime's own operators are registered on first use of the registry, so
 * no load-time constructor is needed (static builds work the same). */
static void ensure_prims(void) { pthread_once(&g_prims_once, register_prims); }

const void *pte_registry_identity(void) { return g_entries; }

static int entry_cmp(const char *name, int32_t prio, const entry *e) {
  int c = strcmp(name, e->name);
  if (c) return c;
  return e->lib->priority - prio; /* higher priority first */
}

/* First index with entry >= (name, prio). */
static int32_t lower_bound(const char *name, int32_t prio) {
  int32_t lo = 0, hi = g_num_entries;
  while (lo < hi) {
    int32_t mid = (lo + hi) / 2;
    if (entry_cmp(name, prio, &g_entries[mid]) > 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int32_t find_first(const char *name) {
  int32_t i = lower_bound(name, 0x7fffffff);
  return (i < g_num_entries && strcmp(g_entries[i].name, name) == 0) ? i : -1;
}

pte_status pte_register_kernels(const pte_kernel_library *lib) {
  if (!lib || !lib->name || (lib->count > 0 && !lib->kernels) || lib->count < 0)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "invalid kernel library");
  if (lib->abi < PTE_ABI_OLDEST || lib->abi > PTE_ABI_VERSION) {
    char what[160];
    snprintf(what, sizeof what, "kernel library '%s'", lib->name);
    return pte_abi_check(lib->abi, what);
  }
  ensure_prims();
  return do_register(lib);
}

pte_status pte_register_kernel_table(pte_kernel_library *lib, pte_kernel *storage,
                                     const pte_kernel *const *ptrs, int32_t count) {
  if (!lib || count < 0 || (count > 0 && (!storage || !ptrs)))
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "invalid kernel table");
  pte_registry_lock();
  if (!lib->kernels) {
    for (int32_t i = 0; i < count; i++) storage[i] = *ptrs[i];
    lib->count = count;
    lib->kernels = storage;
  }
  pte_registry_unlock();
  return pte_register_kernels(lib);
}

static pte_status do_register(const pte_kernel_library *lib) {
  pte_registry_lock();
  pte_status st = PTE_OK;
  for (int32_t i = 0; i < g_num_libs; i++) {
    if (g_libs[i] == lib) goto done; /* the same library again: harmless */
    if (strcmp(g_libs[i]->name, lib->name) == 0) {
      st = pte_error(PTE_ERR_ALREADY_EXISTS, "a kernel library named '%s' is already registered", lib->name);
      goto done;
    }
  }
  if (g_num_libs >= PTE_MAX_KERNEL_LIBRARIES || g_num_entries + lib->count > PTE_MAX_KERNELS) {
    st = pte_error(PTE_ERR_OUT_OF_MEMORY, "operator registry is full (%d libraries, %d kernels)",
                   PTE_MAX_KERNEL_LIBRARIES, PTE_MAX_KERNELS);
    goto done;
  }
  /* Check everything first so a rejected library registers nothing. */
  for (int32_t k = 0; k < lib->count; k++) {
    const pte_kernel *kn = &lib->kernels[k];
    if (!kn->name || !kn->fn) {
      st = pte_error(PTE_ERR_INVALID_ARGUMENT, "kernel %d of library '%s' has no name or function", (int)k,
                     lib->name);
      goto done;
    }
    int32_t at = lower_bound(kn->name, lib->priority);
    if (at < g_num_entries && strcmp(g_entries[at].name, kn->name) == 0 &&
        g_entries[at].lib->priority == lib->priority) {
      st = pte_error(PTE_ERR_ALREADY_EXISTS,
                     "operator '%s' is already registered by library '%s' at priority %d (library '%s')",
                     kn->name, g_entries[at].lib->name, (int)lib->priority, lib->name);
      goto done;
    }
    for (int32_t j = 0; j < k; j++) {
      if (strcmp(lib->kernels[j].name, kn->name) == 0) {
        st = pte_error(PTE_ERR_ALREADY_EXISTS, "library '%s' lists operator '%s' twice", lib->name, kn->name);
        goto done;
      }
    }
  }
  for (int32_t k = 0; k < lib->count; k++) {
    const pte_kernel *kn = &lib->kernels[k];
    if (find_first(kn->name) < 0) g_num_names++;
    int32_t at = lower_bound(kn->name, lib->priority);
    memmove(&g_entries[at + 1], &g_entries[at], sizeof(entry) * (size_t)(g_num_entries - at));
    g_entries[at].name = kn->name;
    g_entries[at].kernel = kn;
    g_entries[at].lib = lib;
    g_num_entries++;
  }
  g_libs[g_num_libs++] = lib;
done:
  pte_registry_unlock();
  return st;
}

int32_t pte_operator_count(void) {
  ensure_prims();
  pte_registry_lock();
  int32_t n = g_num_names;
  pte_registry_unlock();
  return n;
}

const char *pte_operator_name(int32_t index) {
  ensure_prims();
  const char *name = NULL;
  pte_registry_lock();
  int32_t seen = -1;
  for (int32_t i = 0; i < g_num_entries; i++) {
    if (i > 0 && strcmp(g_entries[i].name, g_entries[i - 1].name) == 0) continue;
    if (++seen == index) {
      name = g_entries[i].name;
      break;
    }
  }
  pte_registry_unlock();
  return name;
}

bool pte_operator_registered(const char *name) {
  if (!name) return false;
  ensure_prims();
  pte_registry_lock();
  bool found = find_first(name) >= 0;
  pte_registry_unlock();
  return found;
}

/* Called with the lock held. */
static bool library_disabled(const pte_kernel_library *lib) {
  for (int32_t i = 0; i < g_num_libs; i++)
    if (g_libs[i] == lib) return g_disabled[i];
  return false;
}

pte_status pte_kernel_library_set_enabled(const char *name, bool enabled) {
  if (!name) return pte_error(PTE_ERR_INVALID_ARGUMENT, "library name is NULL");
  ensure_prims();
  pte_status st = pte_error(PTE_ERR_NOT_FOUND, "no kernel library named '%s' is registered", name);
  pte_registry_lock();
  for (int32_t i = 0; i < g_num_libs; i++)
    if (strcmp(g_libs[i]->name, name) == 0) {
      g_disabled[i] = !enabled;
      st = PTE_OK;
    }
  pte_registry_unlock();
  return st;
}

bool pte_kernel_library_enabled(const char *name) {
  bool on = false;
  pte_registry_lock();
  for (int32_t i = 0; i < g_num_libs; i++)
    if (strcmp(g_libs[i]->name, name) == 0) on = !g_disabled[i];
  pte_registry_unlock();
  return on;
}

const pte_kernel *pte_operator_find(const char *name, const char **library) {
  return pte_operator_resolve(name, NULL, -1, library);
}

/* nargs < 0: ignore `accepts` (plain lookup). The candidates are copied
 * under the lock and `accepts` runs after it is released, so a callback may
 * re-enter the registry (find, register, ...) without deadlocking. Entries
 * are never removed, so the copied pointers stay valid. */
const pte_kernel *pte_operator_resolve(const char *name, pte_value *const *args, int32_t nargs,
                                       const char **library) {
  if (!name) return NULL;
  ensure_prims();
  /* A name has at most one entry per library (do_register rejects repeats). */
  entry cand[PTE_MAX_KERNEL_LIBRARIES];
  int32_t n = 0;
  pte_registry_lock();
  for (int32_t i = find_first(name);
       i >= 0 && i < g_num_entries && n < PTE_MAX_KERNEL_LIBRARIES && strcmp(g_entries[i].name, name) == 0;
       i++) {
    if (nargs >= 0 && library_disabled(g_entries[i].lib)) continue;
    cand[n++] = g_entries[i];
    if (nargs < 0) break;
  }
  pte_registry_unlock();
  for (int32_t i = 0; i < n; i++) {
    const pte_kernel *k = cand[i].kernel;
    if (nargs >= 0 && k->accepts && !k->accepts(args, nargs)) continue;
    if (library) *library = cand[i].lib->name;
    return k;
  }
  return NULL;
}
