/* pte_library_open_private: the order of the places it tries (environment
 * override, vendored copy next to libpterun, soname next to it with its
 * dependencies first, system soname) and its error text. Copies a small test
 * library next to libpterun for the middle two, and removes them again. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include "../common/test_util.h"

static bool copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
  char buf[65536];
  size_t n;
  bool ok = in && out;
  while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, n, out) == n;
  if (in) fclose(in);
  if (out && fclose(out)) ok = false;
  return ok;
}

TEST(environment_override_first) {
  char path[512];
  setenv("PTERUN_TEST_PRIVATE_LIBRARY", TEST_LIB, 1);
  void *h =
      pte_library_open_private("libm.so.6", "PTERUN_TEST_PRIVATE_LIBRARY", NULL, NULL, path, sizeof path);
  unsetenv("PTERUN_TEST_PRIVATE_LIBRARY");
  CHECK(h != NULL, "%s", pte_last_error());
  CHECK(!strcmp(path, TEST_LIB), "opened %s", path);
}

TEST(system_soname_last) {
  char path[512];
  void *h = pte_library_open_private("libm.so.6", "PTERUN_TEST_UNSET_VARIABLE", "libnot_vendored.so", NULL,
                                     path, sizeof path);
  CHECK(h != NULL, "%s", pte_last_error());
  CHECK(!strcmp(path, "libm.so.6"), "opened %s", path);
  CHECK(dlsym(h, "cos") != NULL, "not libm");
}

TEST(failure_names_the_library) {
  char path[64] = "untouched";
  CHECK(pte_library_open_private("libpterun_no_such_lib.so.0", NULL, NULL, NULL, path, sizeof path) == NULL,
        "opened");
  CHECK(strstr(pte_last_error(), "cannot load libpterun_no_such_lib.so.0 (") != NULL, "%s", pte_last_error());
  CHECK(!strcmp(path, "untouched"), "path written on failure");
}

TEST(copies_next_to_libpterun) {
  const char *dir = pte_library_dir();
  CHECK(dir[0], "libpterun's folder is unknown");
  char vend[512], own[512], dep[512], path[512];
  int pid = (int)getpid();
  snprintf(vend, sizeof vend, "%s/libpterun_test_vendored_%d.so", dir, pid);
  snprintf(own, sizeof own, "%s/libpterun_test_own_%d.so.0", dir, pid);
  snprintf(dep, sizeof dep, "%s/libpterun_test_dep_%d.so.0", dir, pid);
  bool copied = copy_file(TEST_LIB, vend) && copy_file(TEST_LIB, own) && copy_file(TEST_LIB, dep);
  char vname[64], oname[64], dname[64];
  snprintf(vname, sizeof vname, "libpterun_test_vendored_%d.so", pid);
  snprintf(oname, sizeof oname, "libpterun_test_own_%d.so.0", pid);
  snprintf(dname, sizeof dname, "libpterun_test_dep_%d.so.0", pid);
  const char *deps[] = {"libpterun_test_missing_dep.so.0", dname, NULL};
  void *hv = copied ? pte_library_open_private(oname, NULL, vname, deps, path, sizeof path) : NULL;
  bool vendored_first = hv && !strcmp(path, vend);
  bool dep_before = dlopen(dep, RTLD_NOW | RTLD_NOLOAD) != NULL; /* only the soname path loads deps */
  void *ho = copied
                 ? pte_library_open_private(oname, NULL, "libpterun_test_absent.so", deps, path, sizeof path)
                 : NULL;
  bool own_next = ho && !strcmp(path, own);
  bool dep_after = dlopen(dep, RTLD_NOW | RTLD_NOLOAD) != NULL;
  unlink(vend);
  unlink(own);
  unlink(dep);
  CHECK(copied, "cannot copy the test library into %s", dir);
  CHECK(vendored_first, "vendored copy not preferred: %s (%s)", hv ? path : "NULL", pte_last_error());
  CHECK(!dep_before, "dependencies loaded for the vendored copy");
  CHECK(own_next, "copy under its soname not opened: %s (%s)", ho ? path : "NULL", pte_last_error());
  CHECK(dep_after, "its dependency was not loaded first");
}

TEST_MAIN(T(environment_override_first), T(system_soname_last), T(failure_names_the_library),
          T(copies_next_to_libpterun))
