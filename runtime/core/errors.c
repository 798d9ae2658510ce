/* Status names and the per-thread error message. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define PTE_ERROR_MAX 1024

/* Thread-local so concurrent loads on different threads keep their own message. */
static _Thread_local char g_error[PTE_ERROR_MAX];

const char *pte_version(void) { return PTE_VERSION_STRING; }

pte_status pte_abi_check(uint32_t abi, const char *what) {
  if (abi >= PTE_ABI_OLDEST && abi <= PTE_ABI_VERSION) return PTE_OK;
  return pte_error(PTE_ERR_NOT_SUPPORTED, "%s was built for pterun ABI %u, this runtime has ABI %u",
                   what ? what : "a component", (unsigned)abi, (unsigned)PTE_ABI_VERSION);
}

const char *pte_status_name(pte_status status) {
  switch (status) {
    case PTE_OK: return "PTE_OK";
    case PTE_ERR_INVALID_ARGUMENT: return "PTE_ERR_INVALID_ARGUMENT";
    case PTE_ERR_INVALID_PROGRAM: return "PTE_ERR_INVALID_PROGRAM";
    case PTE_ERR_NOT_FOUND: return "PTE_ERR_NOT_FOUND";
    case PTE_ERR_NOT_SUPPORTED: return "PTE_ERR_NOT_SUPPORTED";
    case PTE_ERR_OUT_OF_MEMORY: return "PTE_ERR_OUT_OF_MEMORY";
    case PTE_ERR_IO: return "PTE_ERR_IO";
    case PTE_ERR_ALREADY_EXISTS: return "PTE_ERR_ALREADY_EXISTS";
    case PTE_ERR_INVALID_STATE: return "PTE_ERR_INVALID_STATE";
    case PTE_ERR_KERNEL: return "PTE_ERR_KERNEL";
    case PTE_ERR_BACKEND: return "PTE_ERR_BACKEND";
    case PTE_ERR_INTERNAL: return "PTE_ERR_INTERNAL";
  }
  return "PTE_ERR_UNKNOWN";
}

const char *pte_last_error(void) { return g_error; }

pte_status pte_verror(pte_status status, const char *fmt, va_list ap) {
  vsnprintf(g_error, sizeof g_error, fmt, ap);
  return status;
}

pte_status pte_error(pte_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  pte_verror(status, fmt, ap);
  va_end(ap);
  return status;
}

void pte_error_prefix(const char *fmt, ...) {
  char prefix[256];
  char old[PTE_ERROR_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, g_error, sizeof old);
  snprintf(g_error, sizeof g_error, "%s: %s", prefix, old);
}

/* ---- logging ---- */

static pte_log_fn g_log_fn;
static void *g_log_user;
static pte_log_level g_log_min = PTE_LOG_WARNING;

void pte_set_log(pte_log_fn fn, void *user, pte_log_level min_level) {
  g_log_fn = fn;
  g_log_user = user;
  g_log_min = min_level;
}

void pte_log(pte_log_level level, const char *fmt, ...) {
  if (level < g_log_min) return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (g_log_fn) {
    g_log_fn(g_log_user, level, msg);
  } else {
    static const char *const names[] = {"debug", "info", "warning", "error"};
    fprintf(stderr, "pterun %s: %s\n", names[level & 3], msg);
  }
}
