/* A program linked against a static, installed pterun: it registers the
 * components it links with explicit calls (no constructors, no whole-archive
 * flags) and runs a zoo case given on the command line.
 *   static_consumer CASE_DIR  (inputs/0.npy ..., expected/0.npy) */
#include <pterun/kernels_portable.h>
#include <pterun/runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Minimal .npy reading for float32 C-order files (the test's own cases). */
static float *read_npy_f32(const char *path, int64_t *sizes, int32_t *dim) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char pre[10];
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    fclose(f);
    return NULL;
  }
  size_t hl = (size_t)pre[8] | ((size_t)pre[9] << 8);
  char header[1024];
  if (hl >= sizeof header || fread(header, 1, hl, f) != hl) {
    fclose(f);
    return NULL;
  }
  header[hl] = 0;
  char *s = strstr(header, "'shape': (");
  if (!strstr(header, "'<f4'") || !s) {
    fclose(f);
    return NULL;
  }
  s += 10;
  *dim = 0;
  int64_t n = 1;
  while (*s && *s != ')') {
    if (*s >= '0' && *s <= '9') {
      sizes[(*dim)++] = strtoll(s, &s, 10);
      n *= sizes[*dim - 1];
    } else {
      s++;
    }
  }
  float *data = (float *)malloc((size_t)n * sizeof(float) + 1);
  if (data && fread(data, sizeof(float), (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  return data;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  if (pte_kernels_portable_register() != PTE_OK) {
    fprintf(stderr, "register: %s\n", pte_last_error());
    return 1;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/model.pte", argv[1]);
  pte_program *p = NULL;
  pte_method *m = NULL;
  if (pte_program_load_file(path, NULL, &p) || pte_method_load(p, "forward", NULL, &m)) {
    fprintf(stderr, "load: %s\n", pte_last_error());
    return 1;
  }
  float *in[8] = {0};
  for (int32_t i = 0; i < pte_method_num_inputs(m) && i < 8; i++) {
    int64_t sizes[PTE_MAX_DIM];
    int32_t dim;
    snprintf(path, sizeof path, "%s/inputs/%d.npy", argv[1], (int)i);
    in[i] = read_npy_f32(path, sizes, &dim);
    pte_tensor t;
    if (!in[i] || pte_tensor_init(&t, PTE_FLOAT32, dim, sizes, in[i]) ||
        pte_method_set_input_tensor(m, i, &t)) {
      fprintf(stderr, "input %d: %s\n", (int)i, pte_last_error());
      return 1;
    }
  }
  if (pte_method_execute(m)) {
    fprintf(stderr, "execute: %s\n", pte_last_error());
    return 1;
  }
  int64_t sizes[PTE_MAX_DIM];
  int32_t dim;
  snprintf(path, sizeof path, "%s/expected/0.npy", argv[1]);
  float *want = read_npy_f32(path, sizes, &dim);
  const pte_tensor *out = pte_method_output(m, 0)->u.tensor;
  double worst = 0;
  for (int64_t k = 0; want && k < pte_tensor_numel(out); k++) {
    double d = fabs((double)((const float *)out->data)[k] - want[k]);
    if (d > worst) worst = d;
  }
  printf("static consumer: %lld outputs, max abs diff %g\n", (long long)pte_tensor_numel(out), worst);
  pte_method_free(m);
  pte_program_free(p);
  return (want && worst < 1e-4) ? 0 : 1;
}
