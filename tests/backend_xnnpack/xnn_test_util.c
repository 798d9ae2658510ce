#define _POSIX_C_SOURCE 200809L
#include "xnn_test_util.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "npy.h"

int xt_failures;

void *xt_read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) ((char *)buf)[n] = 0; /* callers may treat it as a string */
  if (buf && size) *size = (size_t)n;
  return buf;
}

static bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void walk(const char *dir, char ***list, int *n, int *cap) {
  char path[1400];
  snprintf(path, sizeof path, "%s/case.json", dir);
  bool is_case = exists(path);
  snprintf(path, sizeof path, "%s/model.pte", dir);
  if (is_case && exists(path)) {
    if (*n == *cap) {
      *cap = *cap ? *cap * 2 : 64;
      *list = (char **)realloc(*list, (size_t)*cap * sizeof(char *));
    }
    (*list)[(*n)++] = strdup(dir);
    return;
  }
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) walk(path, list, n, cap);
  }
  closedir(d);
}

int xt_find_cases(const char *root, char ***out) {
  char **list = NULL;
  int n = 0, cap = 0;
  walk(root, &list, &n, &cap);
  if (n) qsort(list, (size_t)n, sizeof(char *), cmp_str);
  *out = list;
  return n;
}

void xt_free_list(char **list, int n) {
  for (int i = 0; i < n; i++) free(list[i]);
  free(list);
}

/* "key": "value" or "key": number, first occurrence. */
static const char *json_find(const char *json, const char *key) {
  char pat[160];
  snprintf(pat, sizeof pat, "\"%s\"", key);
  const char *p = strstr(json, pat);
  if (!p) return NULL;
  p += strlen(pat);
  while (*p == ' ' || *p == ':' || *p == '\t' || *p == '\n') p++;
  return p;
}

static void json_string(const char *json, const char *key, char *out, size_t n) {
  out[0] = 0;
  const char *p = json_find(json, key);
  if (!p || *p != '"') return;
  p++;
  size_t i = 0;
  while (*p && *p != '"' && i + 1 < n) out[i++] = *p++;
  out[i] = 0;
}

static double json_number(const char *json, const char *key, double dflt) {
  const char *p = json_find(json, key);
  if (!p) return dflt;
  char *end = NULL;
  double v = strtod(p, &end);
  return end == p ? dflt : v;
}

bool xt_load_case(const char *dir, xt_case *c) {
  memset(c, 0, sizeof *c);
  snprintf(c->dir, sizeof c->dir, "%s", dir);
  char path[1400];
  snprintf(path, sizeof path, "%s/case.json", dir);
  char *json = (char *)xt_read_file(path, NULL);
  if (!json) return false;
  json_string(json, "method", c->method, sizeof c->method);
  if (!c->method[0]) snprintf(c->method, sizeof c->method, "forward");
  json_string(json, "expect_error", c->expect_error, sizeof c->expect_error);
  json_string(json, "expect_run_error", c->expect_run_error, sizeof c->expect_run_error);
  c->rtol = json_number(json, "rtol", 1e-4);
  c->atol = json_number(json, "atol", 1e-5);
  free(json);
  snprintf(path, sizeof path, "%s/model.ptd", dir);
  c->has_data = exists(path);
  return true;
}

bool xt_load_npys(const char *dir, const char *sub, xt_tensors *out) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < 16; i++) {
    char path[1400];
    snprintf(path, sizeof path, "%s/%s/%d.npy", dir, sub, i);
    if (!exists(path)) break;
    npy_array a;
    void *owned = NULL;
    if (npy_read_file(path, &a, &owned)) {
      fprintf(stderr, "%s: %s\n", path, pte_last_error());
      free(owned);
      return false;
    }
    /* Copy into a separate, aligned block the tensor can own. */
    void *data = NULL;
    if (posix_memalign(&data, 64, a.nbytes + 64)) {
      free(owned);
      return false;
    }
    memcpy(data, a.data, a.nbytes);
    free(owned);
    pte_tensor_init(&out->t[i], a.dtype, a.dim, a.sizes, data);
    out->owned[i] = data;
    out->n = i + 1;
  }
  return true;
}

void xt_free_tensors(xt_tensors *ts) {
  for (int i = 0; i < ts->n; i++) free(ts->owned[i]);
  ts->n = 0;
}

/* An IEEE half as a double, written independently of the code under test. */
static double half_value(uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double s = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 0x1f) return m ? NAN : s * INFINITY;
  return s * (e ? ldexp(1024 + m, e - 25) : ldexp(m, -24));
}

static double element(const pte_tensor *t, size_t offset) {
  switch (t->dtype) {
    case PTE_FLOAT32: return ((const float *)t->data)[offset];
    case PTE_FLOAT64: return ((const double *)t->data)[offset];
    case PTE_INT64: return (double)((const int64_t *)t->data)[offset];
    case PTE_INT32: return ((const int32_t *)t->data)[offset];
    case PTE_INT16: return ((const int16_t *)t->data)[offset];
    case PTE_INT8: return ((const int8_t *)t->data)[offset];
    case PTE_FLOAT16: return half_value(((const uint16_t *)t->data)[offset]);
    case PTE_UINT8: return ((const uint8_t *)t->data)[offset];
    default: return NAN;
  }
}

bool xt_compare(const pte_tensor *got, const pte_tensor *want, double rtol, double atol, double *max_err,
                const char *what) {
  *max_err = 0;
  if (got->dim != want->dim) {
    fprintf(stderr, "%s: rank %d, expected %d\n", what, (int)got->dim, (int)want->dim);
    return false;
  }
  for (int32_t i = 0; i < got->dim; i++)
    if (got->sizes[i] != want->sizes[i]) {
      char a[128], b[128];
      fprintf(stderr, "%s: shape %s, expected %s\n", what, pte_shape_str(got->dim, got->sizes, a, sizeof a),
              pte_shape_str(want->dim, want->sizes, b, sizeof b));
      return false;
    }
  if (got->dtype != want->dtype) {
    fprintf(stderr, "%s: dtype %s, expected %s\n", what, pte_dtype_name(got->dtype),
            pte_dtype_name(want->dtype));
    return false;
  }
  int64_t n = pte_tensor_numel(want);
  bool ok = true;
  for (int64_t i = 0; i < n; i++) {
    /* Logical index -> offset through the strides (handles dim orders). */
    int64_t rem = i, off = 0;
    for (int32_t d = want->dim - 1; d >= 0; d--) {
      off += (rem % want->sizes[d]) * got->strides[d];
      rem /= want->sizes[d];
    }
    double g = element(got, (size_t)off), w = element(want, (size_t)i);
    double err = fabs(g - w);
    if (isnan(g) != isnan(w)) err = INFINITY;
    if (isnan(g) && isnan(w)) err = 0;
    if (err > *max_err) *max_err = err;
    if (ok && err > atol + rtol * fabs(w)) {
      fprintf(stderr, "%s: element %lld is %.9g, expected %.9g\n", what, (long long)i, g, w);
      ok = false;
    }
  }
  return ok;
}

const char *xt_current_case;

static bool init_case(const char *dir) {
  char path[1400];
  snprintf(path, sizeof path, "%s/model.pte", dir);
  xt_case c;
  xt_load_case(dir, &c);
  pte_data_map *map = NULL;
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  if (c.has_data) {
    char dpath[1400];
    snprintf(dpath, sizeof dpath, "%s/model.ptd", dir);
    if (pte_data_map_load_file(dpath, NULL, &map) == PTE_OK) po.data_maps = &map, po.num_data_maps = 1;
  }
  pte_program *prog = NULL;
  if (pte_program_load_file(path, &po, &prog) != PTE_OK) {
    pte_data_map_free(map);
    return false;
  }
  for (int32_t k = 0; k < pte_program_method_count(prog); k++) {
    pte_method *m = NULL;
    (void)pte_method_load(prog, pte_program_method_name(prog, k), NULL, &m);
    pte_method_free(m);
  }
  pte_program_free(prog);
  pte_data_map_free(map);
  return true;
}

void xt_init_delegates(int nroots, char *const *roots, void (*done)(const char *dir, bool loaded)) {
  for (int a = 0; a < nroots; a++) {
    char **list = NULL;
    int n = xt_find_cases(roots[a], &list);
    for (int i = 0; i < n; i++) {
      xt_current_case = list[i];
      bool loaded = init_case(list[i]);
      xt_current_case = NULL;
      if (done) done(list[i], loaded);
    }
    xt_free_list(list, n);
  }
}
