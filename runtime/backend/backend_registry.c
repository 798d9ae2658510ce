/* The process-wide backend registry: a fixed table, first registration of a
 * name wins. */
#include "../core/internal.h"

#include <string.h>

static const pte_backend *g_backends[PTE_MAX_BACKENDS];
static int32_t g_num_backends;

pte_status pte_register_backend(const pte_backend *b) {
  /* Checked first: nothing else of a struct of another ABI can be trusted. */
  if (b && pte_abi_check(b->abi, "backend")) return PTE_ERR_NOT_SUPPORTED;
  if (!b || !b->name || !b->init || !b->execute)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "a backend needs a name, init and execute");
  pte_status st = PTE_OK;
  pte_registry_lock();
  for (int32_t i = 0; i < g_num_backends; i++) {
    if (g_backends[i] == b) goto done;
    if (strcmp(g_backends[i]->name, b->name) == 0) {
      st = pte_error(PTE_ERR_ALREADY_EXISTS, "a backend named '%s' is already registered", b->name);
      goto done;
    }
  }
  if (g_num_backends >= PTE_MAX_BACKENDS) {
    st = pte_error(PTE_ERR_OUT_OF_MEMORY, "backend registry is full (%d backends)", PTE_MAX_BACKENDS);
    goto done;
  }
  g_backends[g_num_backends++] = b;
done:
  pte_registry_unlock();
  return st;
}

int32_t pte_backend_count(void) {
  pte_registry_lock();
  int32_t n = g_num_backends;
  pte_registry_unlock();
  return n;
}

const char *pte_backend_name(int32_t index) {
  const char *name = NULL;
  pte_registry_lock();
  if (index >= 0 && index < g_num_backends) name = g_backends[index]->name;
  pte_registry_unlock();
  return name;
}

const pte_backend *pte_backend_find(const char *name) {
  const pte_backend *b = NULL;
  if (!name) return NULL;
  pte_registry_lock();
  for (int32_t i = 0; i < g_num_backends; i++)
    if (strcmp(g_backends[i]->name, name) == 0) b = g_backends[i];
  pte_registry_unlock();
  return b;
}
