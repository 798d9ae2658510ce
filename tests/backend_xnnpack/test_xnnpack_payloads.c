/* Hand-built payloads (gen_payloads.py) through the delegate's internal
 * API: paths the exporter does not produce (ELU, ArgMaxPooling2d with int64
 * indices, Copy, Convert, constants in the payload's own region and in the
 * legacy constant_buffer, native fallbacks, dead nodes, shapes smaller than
 * built in tensors of the real size: staging of rows, native real shapes). Each runs as
 * planned and with native kernels preferred, and twice with the outputs at
 * other addresses (XNNPACK runtimes are re-set up to the new pointers).
 *   test_xnnpack_payloads DIR */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "npy.h"
#include "xnn_delegate.h"
#include "xnn_nodes.h"
#include "xnn_test_util.h"

#define MAXARGS 16

typedef struct arg {
  bool is_out;
  pte_tensor t, want;
  void *data[2], *owned;
} arg;

static bool load_arg(const char *dir, int k, arg *a) {
  char path[1400];
  memset(a, 0, sizeof *a);
  for (int out = 0; out < 2; out++) {
    snprintf(path, sizeof path, "%s/args/%d_%s.npy", dir, k, out ? "out" : "in");
    struct stat st;
    if (stat(path, &st) != 0) continue;
    npy_array n;
    if (npy_read_file(path, &n, &a->owned)) return false;
    a->is_out = out;
    pte_tensor_init(&a->want, n.dtype, n.dim, n.sizes, (void *)n.data);
    for (int b = 0; b < 2; b++) {
      a->data[b] = calloc(1, n.nbytes + 64);
      if (!out) memcpy(a->data[b], n.data, n.nbytes);
    }
    pte_tensor_init(&a->t, n.dtype, n.dim, n.sizes, a->data[0]);
    return true;
  }
  return false;
}

static void run_payload(const char *dir) {
  char path[1400];
  snprintf(path, sizeof path, "%s/payload.bin", dir);
  size_t size = 0;
  void *blob = xt_read_file(path, &size);
  XT_CHECK(blob != NULL, "%s", path);
  if (!blob) return;
  arg args[MAXARGS];
  int n = 0;
  while (n < MAXARGS && load_arg(dir, n, &args[n])) n++;
  for (int native = 0; native < 2; native++) {
    xg_mem mem = {NULL, NULL, 0};
    xg_delegate *d = NULL;
    xg_options opts = {native != 0, NULL, 0, false};
    pte_status st = xg_delegate_create(blob, size, NULL, NULL, &mem, &opts, &d);
    XT_CHECK(st == PTE_OK, "%s: %s", dir, pte_last_error());
    if (!st) {
      xg_delegate_info info;
      xg_delegate_get_info(d, &info);
      printf("%s%s: %u nodes: %u in %u XNNPACK runtime(s), %u native, %u dead\n", dir,
             native ? " (native)" : "", info.nodes, info.xnn_nodes, info.segments, info.native_nodes,
             info.dead_nodes);
      for (int rep = 0; rep < 2; rep++) {
        pte_value vals[MAXARGS], *ptrs[MAXARGS];
        for (int k = 0; k < n; k++) {
          args[k].t.data = args[k].data[rep];
          memset(&vals[k], 0, sizeof vals[k]);
          vals[k].tag = PTE_TAG_TENSOR;
          vals[k].u.tensor = &args[k].t;
          ptrs[k] = &vals[k];
        }
        st = xg_delegate_run(d, ptrs, n, NULL, NULL);
        XT_CHECK(st == PTE_OK, "%s: run: %s", dir, pte_last_error());
        for (int k = 0; !st && k < n; k++) {
          if (!args[k].is_out) continue;
          char what[1500];
          snprintf(what, sizeof what, "%s%s output %d (run %d)", dir, native ? " (native)" : "", k, rep + 1);
          double err;
          XT_CHECK(xt_compare(&args[k].t, &args[k].want, 1e-5, 1e-6, &err, what), "%s differs", what);
        }
      }
      xg_delegate_destroy(d);
    }
    xg_mem_release(&mem);
  }
  for (int k = 0; k < n; k++) free(args[k].data[0]), free(args[k].data[1]), free(args[k].owned);
  free(blob);
}

/* Every XNodeUnion member has a complete row in xnn_nodes.def: a layout
 * that fits the node's ids, a check, and someone to run it (XNNPACK or
 * pterun), except the one refused type. */
static void check_node_table(void) {
  XT_CHECK(xg_node_desc_of(0) == NULL && xg_node_desc_of(XG_NODE_TYPE_END) == NULL,
           "codes outside XNodeUnion");
  for (int t = 1; t < XG_NODE_TYPE_END; t++) {
    const xg_node_desc *d = xg_node_desc_of(t);
    const char *name = xg_node_type_name(t);
    XT_CHECK(d && d->layout && d->layout->table && d->check, "%s: incomplete row", name);
    if (!d || !d->layout) continue;
    XT_CHECK(strncmp(name, "XNN", 3) == 0, "type %d has no name", t);
    XT_CHECK(d->nin <= d->layout->nin && d->layout->nout <= 2, "%s: more ids than its table holds", name);
    XT_CHECK(d->define || d->native || t == XG_SDPA, "%s: runs nowhere", name);
    XT_CHECK(!d->copy || (d->define && d->native), "%s: a copy must run either way", name);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  check_node_table();
  DIR *dd = opendir(argv[1]);
  XT_CHECK(dd != NULL, "%s", argv[1]);
  int count = 0;
  struct dirent *e;
  char **names = NULL;
  while (dd && (e = readdir(dd)) != NULL) {
    if (e->d_name[0] == '.') continue;
    names = (char **)realloc(names, (size_t)(count + 1) * sizeof(char *));
    names[count++] = strdup(e->d_name);
  }
  if (dd) closedir(dd);
  for (int i = 0; i < count; i++) {
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/%s", argv[1], names[i]);
    run_payload(dir);
    free(names[i]);
  }
  free(names);
  XT_CHECK(count > 0, "no payloads in %s", argv[1]);
  printf("%d payload(s), %d check(s) failed\n", count, xt_failures);
  return xt_failures ? 1 : 0;
}
