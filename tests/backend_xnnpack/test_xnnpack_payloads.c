/* Hand-built payloads (gen_payloads.py) through the delegate's internal
 * API: paths the exporter does not produce (ELU, ArgMaxPooling2d with int64
 * indices, Copy, Convert, constants in the payload's own region and in the
 * legacy constant_buffer, native fallbacks, dead nodes, shapes smaller than
 * built in tensors of the real size: staging of rows, native real shapes; qint8 arguments, whose
 * tensors hold the raw int8 data). Each runs as
 * planned and with native kernels preferred, and twice with the outputs at
 * other addresses (XNNPACK runtimes are re-set up to the new pointers); each argument is then
 * given the wrong dtype, which must be refused. A fourth mode lends the run-time workspace as
 * the runtime does (the method's scratch): refused before any lending and when too small or
 * misaligned, then each run on other memory, filled with NaN bytes (nothing may be read from
 * it before it was written). A folder with expect_error.txt holds a payload
 * that must be refused at creation with that text in the message.
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

/* The arguments as the delegate takes them: tensor values, by pointer. */
static void as_values(arg *args, int n, pte_value *vals, pte_value **ptrs) {
  for (int k = 0; k < n; k++) {
    memset(&vals[k], 0, sizeof vals[k]);
    vals[k].tag = PTE_TAG_TENSOR;
    vals[k].u.tensor = &args[k].t;
    ptrs[k] = &vals[k];
  }
}

/* Which path a run took: one row of fifteen (rows_few) runs every node
 * natively at its real shape, no runtime computing the built rows; a third
 * or more of them (rows_*_shrunk) stays on the runtimes as planned (checked
 * with the nodes on XNNPACK: with the rows' preferences a fully connected
 * node runs natively, and those payloads would have no runtime). */
static void check_path(const char *dir, const xg_delegate *d, const xg_delegate_info *info, bool on_xnnpack) {
  const char *base = strrchr(dir, '/');
  base = base ? base + 1 : dir;
  uint32_t xnn = 0, own = 0;
  xg_delegate_last_run(d, &xnn, &own);
  if (!strcmp(base, "rows_few"))
    XT_CHECK(xnn == 0 && own == info->nodes - info->dead_nodes,
             "%s: one row of fifteen ran %u runtime(s) and %u native node(s)", dir, xnn, own);
  else if (on_xnnpack && !strncmp(base, "rows_", 5))
    XT_CHECK(xnn == info->segments && info->segments > 0, "%s: %u of %u runtime(s) ran", dir, xnn,
             info->segments);
}

static void run_payload(const char *dir) {
  char path[1400];
  snprintf(path, sizeof path, "%s/payload.bin", dir);
  size_t size = 0;
  void *blob = xt_read_file(path, &size);
  XT_CHECK(blob != NULL, "%s", path);
  if (!blob) return;
  /* expect_error.txt: creation must fail with that text in the message. */
  snprintf(path, sizeof path, "%s/expect_error.txt", dir);
  char *expect = (char *)xt_read_file(path, NULL); /* NUL-terminated */
  if (expect) {
    xg_mem mem = {NULL, NULL, 0};
    xg_delegate *d = NULL;
    pte_status st = xg_delegate_create(blob, size, NULL, NULL, &mem, NULL, &d);
    XT_CHECK(st != PTE_OK && strstr(pte_last_error(), expect), "%s: expected an error with '%s', got: %s",
             dir, expect, st ? pte_last_error() : "success");
    if (st == PTE_OK) xg_delegate_destroy(d);
    else printf("%s: refused as expected: %s\n", dir, pte_last_error());
    xg_mem_release(&mem);
    free(expect);
    free(blob);
    return;
  }
  arg args[MAXARGS];
  int n = 0;
  while (n < MAXARGS && load_arg(dir, n, &args[n])) n++;
  /* mode 0: as planned; 1: every node native; 2: every node XNNPACK can run
   * on it; 3: as planned, the workspace lent */
  static const char *const mode_name[] = {"", " (native)", " (xnnpack)", " (lent workspace)"};
  for (int mode = 0; mode < 4; mode++) {
    const bool native = mode == 1, lent = mode == 3;
    xg_mem mem = {NULL, NULL, 0};
    xg_delegate *d = NULL;
    xg_options opts = {native, NULL, 0, mode == 2, lent};
    void *ws[2] = {NULL, NULL};
    pte_status st = xg_delegate_create(blob, size, NULL, NULL, &mem, &opts, &d);
    XT_CHECK(st == PTE_OK, "%s: %s", dir, pte_last_error());
    if (!st) {
      xg_delegate_info info;
      xg_delegate_get_info(d, &info);
      printf("%s%s: %u nodes: %u in %u XNNPACK runtime(s), %u native, %u dead\n", dir, mode_name[mode],
             info.nodes, info.xnn_nodes, info.segments, info.native_nodes, info.dead_nodes);
      const size_t wsb = xg_delegate_workspace(d);
      XT_CHECK(lent == info.workspace_lent && (lent ? wsb == info.workspace_bytes : wsb == 0),
               "%s%s: workspace %zu bytes, info %zu, lent %d", dir, mode_name[mode], wsb,
               info.workspace_bytes, (int)info.workspace_lent);
      if (lent && wsb) {
        for (int b = 0; b < 2; b++) {
          ws[b] = aligned_alloc(64, (wsb + 64 + 63) & ~(size_t)63);
          memset(ws[b], 0xff, wsb + 64); /* NaN floats, -1 bytes */
        }
        pte_value vals[MAXARGS], *ptrs[MAXARGS];
        as_values(args, n, vals, ptrs);
        st = xg_delegate_run(d, ptrs, n, NULL, NULL);
        XT_CHECK(st == PTE_ERR_INVALID_STATE && strstr(pte_last_error(), "no workspace"),
                 "%s: a run without a workspace: %s", dir, st ? pte_last_error() : "accepted");
        st = xg_delegate_lend(d, ws[0], wsb - 1);
        XT_CHECK(st == PTE_ERR_INVALID_ARGUMENT && strstr(pte_last_error(), "workspace"),
                 "%s: a workspace a byte short: %s", dir, st ? pte_last_error() : "accepted");
        st = xg_delegate_lend(d, (char *)ws[0] + 4, wsb);
        XT_CHECK(st == PTE_ERR_INVALID_ARGUMENT, "%s: a misaligned workspace: %s", dir,
                 st ? pte_last_error() : "accepted");
      }
      for (int rep = 0; rep < 2; rep++) {
        pte_value vals[MAXARGS], *ptrs[MAXARGS];
        for (int k = 0; k < n; k++) args[k].t.data = args[k].data[rep];
        as_values(args, n, vals, ptrs);
        st = lent ? xg_delegate_lend(d, ws[rep], wsb) : PTE_OK;
        XT_CHECK(st == PTE_OK, "%s: lending %zu bytes: %s", dir, wsb, pte_last_error());
        if (!st) st = xg_delegate_run(d, ptrs, n, NULL, NULL);
        XT_CHECK(st == PTE_OK, "%s: run: %s", dir, pte_last_error());
        check_path(dir, d, &info, mode == 2);
        for (int k = 0; !st && k < n; k++) {
          if (!args[k].is_out) continue;
          char what[1500];
          snprintf(what, sizeof what, "%s%s output %d (run %d)", dir, mode_name[mode], k, rep + 1);
          double err;
          XT_CHECK(xt_compare(&args[k].t, &args[k].want, 1e-5, 1e-6, &err, what), "%s differs", what);
        }
      }
      /* An argument whose dtype is not its value's is refused, named. */
      for (int k = 0; k < n; k++) {
        pte_value vals[MAXARGS], *ptrs[MAXARGS];
        as_values(args, n, vals, ptrs);
        const pte_dtype keep = args[k].t.dtype;
        args[k].t.dtype = keep == PTE_FLOAT32 ? PTE_INT8 : PTE_FLOAT32;
        st = xg_delegate_run(d, ptrs, n, NULL, NULL);
        XT_CHECK(st == PTE_ERR_INVALID_ARGUMENT && strstr(pte_last_error(), "expected"),
                 "%s: argument %d of the wrong dtype: %s", dir, k, st ? pte_last_error() : "accepted");
        args[k].t.dtype = keep;
      }
      xg_delegate_destroy(d);
    }
    free(ws[0]), free(ws[1]);
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
