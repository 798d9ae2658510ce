/* The lock that guards the process-wide registries. */
#include "../core/internal.h"

#include <pthread.h>

static pthread_mutex_t g_registry_mutex = PTHREAD_MUTEX_INITIALIZER;

void pte_registry_lock(void) { pthread_mutex_lock(&g_registry_mutex); }
void pte_registry_unlock(void) { pthread_mutex_unlock(&g_registry_mutex); }
