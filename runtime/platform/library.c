/* Opening component and operator libraries at run time (dlopen). */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "…/libpterun_backend_xnnpack.so.0" → "pte_backend_xnnpack_register";
 * "…/libmy_ops.so" → "pte_my_ops_register". */
static void entry_symbol(const char *path, char *out, size_t n) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strncmp(base, "lib", 3) == 0) base += 3;
  if (strncmp(base, "pterun_", 7) == 0) base += 7;
  size_t len = strcspn(base, ".");
  snprintf(out, n, "pte_%.*s_register", (int)len, base);
}

pte_status pte_library_load(const char *path) {
  if (!path) return pte_error(PTE_ERR_INVALID_ARGUMENT, "library path is NULL");
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    return pte_error(PTE_ERR_NOT_FOUND, "cannot load library '%s': %s", path, why ? why : "unknown error");
  }
  char sym[256];
  entry_symbol(path, sym, sizeof sym);
  typedef pte_status (*register_fn)(void);
  register_fn fn;
  void *addr = dlsym(h, sym);
  memcpy(&fn, &addr, sizeof fn);
  /* Registration is idempotent, so a second load (or the library's own
   * constructor having run already) is harmless. The handle is kept open:
   * registered kernels live in the library. */
  if (fn) {
    pte_status st = fn();
    if (st) {
      pte_error_prefix("registering '%s'", path);
      return st;
    }
  }
  return PTE_OK;
}

/* Shared by the thread pool (pthreadpool) and the XNNPACK backend. */
void *pte_library_open_private(const char *soname, const char *env, const char *vendored,
                               const char *const *deps, char *path, size_t path_size) {
  const int mode = RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND;
  char tried[PATH_MAX];
  void *h = NULL;
  if (!soname) {
    pte_error(PTE_ERR_INVALID_ARGUMENT, "pte_library_open_private: soname is NULL");
    return NULL;
  }
  const char *over = env ? getenv(env) : NULL;
  if (over && *over) {
    snprintf(tried, sizeof tried, "%s", over);
    h = dlopen(tried, mode);
  }
  /* A copy shipped next to libpterun (the wheel puts every library in one
   * folder) wins over the system one. */
  const char *dir = pte_library_dir();
  if (!h && dir[0] && vendored) {
    snprintf(tried, sizeof tried, "%s/%s", dir, vendored);
    if (access(tried, R_OK) == 0) h = dlopen(tried, mode);
  }
  if (!h && dir[0]) {
    snprintf(tried, sizeof tried, "%s/%s", dir, soname);
    if (access(tried, R_OK) == 0) {
      for (int32_t i = 0; deps && deps[i]; i++) {
        char dep[PATH_MAX];
        snprintf(dep, sizeof dep, "%s/%s", dir, deps[i]);
        if (access(dep, R_OK) == 0) (void)dlopen(dep, mode);
      }
      h = dlopen(tried, mode);
    }
  }
  if (!h) {
    snprintf(tried, sizeof tried, "%s", soname);
    h = dlopen(tried, mode);
  }
  if (!h) {
    const char *e = dlerror();
    pte_error(PTE_ERR_NOT_FOUND, "cannot load %s (%s)", soname, e ? e : "dlopen failed");
    return NULL;
  }
  if (path && path_size) snprintf(path, path_size, "%s", tried);
  return h;
}

/* Computed once: components call this from their own lazy initialisation,
 * possibly on several threads at a time. */
static char g_library_dir[PATH_MAX];
static pthread_once_t g_library_dir_once = PTHREAD_ONCE_INIT;

static void find_library_dir(void) {
  Dl_info info;
  if (!dladdr((void *)&pte_library_dir, &info) || !info.dli_fname) return;
  char resolved[PATH_MAX];
  const char *src = realpath(info.dli_fname, resolved) ? resolved : info.dli_fname;
  snprintf(g_library_dir, sizeof g_library_dir, "%s", src);
  char *slash = strrchr(g_library_dir, '/');
  if (slash) *slash = 0;
  else snprintf(g_library_dir, sizeof g_library_dir, ".");
}

const char *pte_library_dir(void) {
  pthread_once(&g_library_dir_once, find_library_dir);
  return g_library_dir;
}

pte_status pte_library_load_all(int32_t *count) {
  const char *dir = pte_library_dir();
  if (count) *count = 0;
  if (!dir[0]) return pte_error(PTE_ERR_NOT_FOUND, "cannot tell where libpterun was loaded from");
  DIR *d = opendir(dir);
  if (!d) return pte_error(PTE_ERR_IO, "cannot list '%s'", dir);
  char seen[32][64];
  int32_t nseen = 0;
  pte_status result = PTE_OK;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    const char *name = e->d_name;
    if (strncmp(name, "libpterun_", 10) != 0 || !strstr(name, ".so")) continue;
    size_t stem = (size_t)(strstr(name, ".so") - name);
    if (stem >= sizeof seen[0]) continue;
    bool dup = false;
    for (int32_t i = 0; i < nseen && !dup; i++) dup = strncmp(seen[i], name, stem) == 0 && seen[i][stem] == 0;
    if (dup || nseen >= 32) continue;
    memcpy(seen[nseen], name, stem);
    seen[nseen][stem] = 0;
    nseen++;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    pte_status st = pte_library_load(path);
    if (st && result == PTE_OK) result = st;
    if (!st && count) (*count)++;
  }
  closedir(d);
  return result;
}
