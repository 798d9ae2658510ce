#include "test_util.h"

#include "../../cli/npy.h"

#ifndef PTERUN_SOURCE_DIR
#error "PTERUN_SOURCE_DIR must be defined"
#endif

const char *zoo_path(const char *rel) {
  static char buf[4][1024];
  static int slot;
  slot = (slot + 1) % 4;
  snprintf(buf[slot], sizeof buf[slot], "%s/zoo/%s", PTERUN_SOURCE_DIR, rel);
  return buf[slot];
}

void *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  void *buf = aligned_alloc(64, ((size_t)n + 64) & ~(size_t)63);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return buf;
}

const char *compare_npy(const pte_tensor *t, const char *npy_path, double rtol, double atol) {
  static char msg[512];
  npy_array a;
  void *owned;
  if (npy_read_file(npy_path, &a, &owned)) {
    snprintf(msg, sizeof msg, "%s", pte_last_error());
    return msg;
  }
  const char *result = NULL;
  if (a.dtype != t->dtype || a.dim != t->dim) {
    snprintf(msg, sizeof msg, "dtype/rank mismatch: got %s rank %d, expected %s rank %d",
             pte_dtype_name(t->dtype), (int)t->dim, pte_dtype_name(a.dtype), (int)a.dim);
    result = msg;
  }
  for (int32_t i = 0; !result && i < t->dim; i++)
    if (a.sizes[i] != t->sizes[i]) {
      snprintf(msg, sizeof msg, "size mismatch at dim %d: %lld vs %lld", (int)i, (long long)t->sizes[i],
               (long long)a.sizes[i]);
      result = msg;
    }
  int64_t n = pte_tensor_numel(t);
  for (int64_t i = 0; !result && i < n; i++) {
    double got, want;
    switch (t->dtype) {
      case PTE_FLOAT32:
        got = ((const float *)t->data)[i];
        want = ((const float *)a.data)[i];
        break;
      case PTE_FLOAT64:
        got = ((const double *)t->data)[i];
        want = ((const double *)a.data)[i];
        break;
      case PTE_INT64:
        got = (double)((const int64_t *)t->data)[i];
        want = (double)((const int64_t *)a.data)[i];
        break;
      case PTE_INT32:
        got = ((const int32_t *)t->data)[i];
        want = ((const int32_t *)a.data)[i];
        break;
      case PTE_BOOL:
      case PTE_UINT8:
        got = ((const uint8_t *)t->data)[i];
        want = ((const uint8_t *)a.data)[i];
        break;
      case PTE_INT8:
        got = ((const int8_t *)t->data)[i];
        want = ((const int8_t *)a.data)[i];
        break;
      case PTE_INT16:
        got = ((const int16_t *)t->data)[i];
        want = ((const int16_t *)a.data)[i];
        break;
      default:
        snprintf(msg, sizeof msg, "unsupported dtype");
        result = msg;
        continue;
    }
    if (!(fabs(got - want) <= atol + rtol * fabs(want)) && !(isnan(got) && isnan(want))) {
      snprintf(msg, sizeof msg, "element %lld: got %.9g, expected %.9g", (long long)i, got, want);
      result = msg;
    }
  }
  free(owned);
  return result;
}

pte_status run_case(const char *case_dir, const char *method, const char *data_file, double rtol, double atol,
                    char *err, size_t errn) {
  char path[1024];
  pte_data_map *map = NULL;
  pte_program *prog = NULL;
  pte_method *m = NULL;
  void *owned[16] = {0};
  pte_tensor ins[16];
  pte_status st = PTE_OK;
  err[0] = 0;
  if (data_file) {
    snprintf(path, sizeof path, "%s/%s", case_dir, data_file);
    if ((st = pte_data_map_load_file(path, NULL, &map))) goto done;
  }
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  po.data_maps = &map;
  po.num_data_maps = map ? 1 : 0;
  snprintf(path, sizeof path, "%s/model.pte", case_dir);
  if ((st = pte_program_load_file(path, &po, &prog))) goto done;
  if ((st = pte_method_load(prog, method, NULL, &m))) goto done;
  for (int32_t i = 0; i < pte_method_num_inputs(m) && i < 16; i++) {
    npy_array a;
    snprintf(path, sizeof path, "%s/inputs/%d.npy", case_dir, (int)i);
    if ((st = npy_read_file(path, &a, &owned[i]))) goto done;
    pte_tensor_init(&ins[i], a.dtype, a.dim, a.sizes, (void *)a.data);
    if ((st = pte_method_set_input_tensor(m, i, &ins[i]))) goto done;
  }
  if ((st = pte_method_execute(m))) goto done;
  for (int32_t i = 0; i < pte_method_num_outputs(m); i++) {
    const pte_value *v = pte_method_output(m, i);
    snprintf(path, sizeof path, "%s/expected/%d.npy", case_dir, (int)i);
    const char *msg = v->tag == PTE_TAG_TENSOR ? compare_npy(v->u.tensor, path, rtol, atol) : "not a tensor";
    if (msg) {
      snprintf(err, errn, "output %d: %s", (int)i, msg);
      st = PTE_ERR_INTERNAL;
      goto done;
    }
  }
done:
  if (st && !err[0]) snprintf(err, errn, "%s", pte_last_error());
  for (int i = 0; i < 16; i++) free(owned[i]);
  pte_method_free(m);
  pte_program_free(prog);
  pte_data_map_free(map);
  return st;
}

pte_status test_backend_init_noop(void *u, pte_backend_init_ctx *c, const void *p, size_t n,
                                  const pte_compile_spec *s, int32_t ns, void **h) {
  (void)u;
  (void)c;
  (void)p;
  (void)n;
  (void)s;
  (void)ns;
  *h = NULL;
  return PTE_OK;
}

pte_status test_backend_exec_noop(void *u, pte_backend_exec_ctx *c, void *h, pte_value **a, int32_t n) {
  (void)u;
  (void)c;
  (void)h;
  (void)a;
  (void)n;
  return PTE_OK;
}
