/* The training component: loading joint forward-backward programs, their
 * parameters and gradients, SGD against torch.optim.SGD (the zoo's training
 * cases: every step's loss within the case's rtol), and .ptd saving that the
 * inference path loads. */
#include <pterun/kernels_optimized.h>
#include <pterun/kernels_portable.h>
#include <pterun/training.h>

#include "../../cli/npy.h"
#include "../common/test_util.h"

#include <float.h>

#define TR_MAX_STEPS 64

/* The few fields of a training.json the tests need (written by
 * tools/zoo/zoo_training.py, so a flat scan is enough). */
typedef struct tr_case {
  char dir[512];
  pte_training_sgd_options opt;
  int32_t steps;
  double losses[TR_MAX_STEPS];
  double rtol;
  bool infer;
} tr_case;

static double json_num(const char *text, const char *key, double dflt) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(text, pat);
  return p ? strtod(p + strlen(pat), NULL) : dflt;
}

static bool load_case(const char *name, tr_case *c) {
  memset(c, 0, sizeof *c);
  snprintf(c->dir, sizeof c->dir, "%s", zoo_path(name));
  char path[600];
  snprintf(path, sizeof path, "%s/training.json", c->dir);
  size_t n = 0;
  void *raw = read_file(path, &n);
  char *text = raw ? (char *)malloc(n + 1) : NULL; /* read_file does not terminate the bytes */
  if (text) {
    memcpy(text, raw, n);
    text[n] = '\0';
  }
  free(raw);
  if (!text) return false;
  pte_training_sgd_options o = PTE_TRAINING_SGD_OPTIONS_INIT;
  o.lr = json_num(text, "lr", -1);
  o.momentum = json_num(text, "momentum", 0);
  o.dampening = json_num(text, "dampening", 0);
  o.weight_decay = json_num(text, "weight_decay", 0);
  o.nesterov = strstr(text, "\"nesterov\": true") != NULL;
  c->opt = o;
  c->steps = (int32_t)json_num(text, "steps", 0);
  c->rtol = json_num(text, "rtol", 0);
  c->infer = strstr(text, "\"inference\":") != NULL;
  const char *p = strstr(text, "\"losses\":");
  p = p ? strchr(p, '[') : NULL;
  for (int32_t i = 0; p && i < c->steps && i < TR_MAX_STEPS; i++) {
    char *end;
    c->losses[i] = strtod(p + 1, &end);
    p = strchr(end, i + 1 < c->steps ? ',' : ']');
  }
  free(text);
  return p && c->steps > 0 && c->steps <= TR_MAX_STEPS && o.lr > 0 && c->rtol > 0;
}

/* Static builds register nothing on their own (shared ones at load; then
 * these calls are no-ops). */
static pte_status kernels(void) {
  pte_status st = pte_kernels_portable_register();
  if (!st) st = pte_kernels_optimized_register();
  return st;
}

/* Inputs of a case, kept alive while the module uses them. */
typedef struct tr_inputs {
  void *owned[8];
  pte_tensor t[8];
  int32_t n;
} tr_inputs;

static pte_status set_inputs(pte_training_module *m, const char *dir, tr_inputs *in) {
  memset(in, 0, sizeof *in);
  int32_t n = pte_method_num_inputs(pte_training_method(m));
  for (int32_t i = 0; i < n && i < 8; i++) {
    char path[600];
    npy_array a;
    snprintf(path, sizeof path, "%s/inputs/%d.npy", dir, (int)i);
    pte_status st = npy_read_file(path, &a, &in->owned[i]);
    if (st) return st;
    in->n = i + 1;
    pte_tensor_init(&in->t[i], a.dtype, a.dim, a.sizes, (void *)a.data);
    if ((st = pte_training_set_input(m, i, &in->t[i]))) return st;
  }
  return PTE_OK;
}

static void free_inputs(tr_inputs *in) {
  for (int32_t i = 0; i < 8; i++) free(in->owned[i]);
}

/* Train a case for its steps; *worst receives the largest relative loss
 * error, *bad_step the first step beyond rtol (-1 when none). */
static pte_status train_case(const tr_case *c, pte_training_module *m, double *worst, int32_t *bad_step) {
  tr_inputs in;
  pte_training_sgd *opt = NULL;
  pte_status st = set_inputs(m, c->dir, &in);
  if (!st)
    st = pte_training_sgd_create(pte_training_parameters(m), pte_training_parameter_count(m), &c->opt, &opt);
  *worst = 0;
  *bad_step = -1;
  for (int32_t s = 0; s < c->steps && !st; s++) {
    double loss = 0;
    st = pte_training_forward_backward(m);
    if (!st) st = pte_training_loss(m, &loss);
    if (!st) {
      double rel = fabs(loss - c->losses[s]) / fabs(c->losses[s]);
      if (rel > *worst) *worst = rel;
      if (rel > c->rtol && *bad_step < 0) *bad_step = s;
      st = pte_training_sgd_step(opt, pte_training_gradients(m), pte_training_parameter_count(m));
    }
  }
  pte_training_sgd_free(opt);
  free_inputs(&in);
  return st;
}

TEST(metadata_and_parameters) {
  CHECK_OK(kernels());
  pte_training_module *m = NULL;
  CHECK_OK(pte_training_load_file(zoo_path("training/mlp_sgd/model.pte"), NULL, &m));
  CHECK(pte_training_parameter_count(m) == 4, "%d parameters", (int)pte_training_parameter_count(m));
  static const char *names[4] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};
  static const int64_t numel[4] = {32, 8, 24, 3};
  for (int32_t i = 0; i < 4; i++) {
    CHECK(strcmp(pte_training_parameter_name(m, i), names[i]) == 0, "name %d: %s", (int)i,
          pte_training_parameter_name(m, i));
    CHECK(pte_training_parameter_index(m, names[i]) == i, "index of %s", names[i]);
    pte_tensor *p = pte_training_parameter(m, i);
    CHECK(
        p && p->dtype == PTE_FLOAT32 && pte_tensor_numel(p) == numel[i] && !(p->flags & PTE_TENSOR_READONLY),
        "parameter %d", (int)i);
    CHECK(pte_training_parameters(m)[i] == p, "parameters()[%d]", (int)i);
  }
  CHECK(pte_training_parameter(m, 4) == NULL && pte_training_parameter_name(m, -1) == NULL, "out of range");
  CHECK(pte_training_parameter_index(m, "nope") == -1, "unknown name");
  CHECK(pte_training_output_count(m) == 2, "outputs: %d", (int)pte_training_output_count(m));
  /* loss and logits, then the gradients after a forward_backward */
  tr_inputs in;
  CHECK_OK(set_inputs(m, zoo_path("training/mlp_sgd"), &in));
  CHECK_OK(pte_training_forward_backward(m));
  double loss = 0;
  CHECK_OK(pte_training_loss(m, &loss));
  CHECK(loss > 0.5 && loss < 2, "loss %g", loss);
  const pte_value *logits = pte_training_output(m, 1);
  CHECK(logits && logits->tag == PTE_TAG_TENSOR && pte_tensor_numel(logits->u.tensor) == 18, "logits");
  CHECK(pte_training_output(m, 2) == NULL, "gradients are not outputs");
  const pte_tensor *g = pte_training_gradients(m)[3];
  CHECK(pte_tensor_numel(g) == 3, "fc2.bias gradient");
  /* cross entropy's bias gradient sums to zero over the classes */
  double sum = 0;
  for (int i = 0; i < 3; i++) sum += ((const float *)g->data)[i];
  CHECK(fabs(sum) < 1e-6, "bias gradient sums to %g", sum);
  free_inputs(&in);
  pte_training_free(m);
}

/* Parameters are the module's own memory: writing one changes the next
 * forward_backward, and equal constants (the exporter stores two LayerNorm
 * weights of ones once) stay independent. */
TEST(parameters_are_writable_and_independent) {
  CHECK_OK(kernels());
  pte_training_module *m = NULL;
  CHECK_OK(pte_training_load_file(zoo_path("training/transformer_momentum/model.pte"), NULL, &m));
  int32_t a = pte_training_parameter_index(m, "ln1.weight"),
          b = pte_training_parameter_index(m, "ln2.weight");
  CHECK(a >= 0 && b >= 0, "layer norm weights");
  pte_tensor *pa = pte_training_parameter(m, a), *pb = pte_training_parameter(m, b);
  CHECK(pa->data != pb->data, "parameters share memory");
  tr_inputs in;
  CHECK_OK(set_inputs(m, zoo_path("training/transformer_momentum"), &in));
  double before = 0, after = 0;
  CHECK_OK(pte_training_forward_backward(m));
  CHECK_OK(pte_training_loss(m, &before));
  for (int64_t i = 0; i < pte_tensor_numel(pa); i++) ((float *)pa->data)[i] = 3.0f;
  CHECK(((const float *)pb->data)[0] == 1.0f, "writing ln1.weight changed ln2.weight");
  CHECK_OK(pte_training_forward_backward(m));
  CHECK_OK(pte_training_loss(m, &after));
  CHECK(fabs(after - before) > 1e-4, "loss did not change: %g -> %g", before, after);
  free_inputs(&in);
  pte_training_free(m);
}

TEST(not_a_training_program) {
  CHECK_OK(kernels());
  pte_training_module *m = NULL;
  CHECK_FAILS(pte_training_load_file(zoo_path("models/mlp/model.pte"), NULL, &m), PTE_ERR_INVALID_PROGRAM,
              "not a training program");
  CHECK(m == NULL, "module left behind");
  CHECK_FAILS(pte_training_load_file(zoo_path("training/mlp_sgd/model.pte"), "encode", &m),
              PTE_ERR_INVALID_PROGRAM, "__et_training_gradients_index_encode");
  CHECK_FAILS(pte_training_load_file(NULL, NULL, &m), PTE_ERR_INVALID_ARGUMENT, "must not be NULL");
}

/* SGD on one tensor against values worked out by hand from torch's rules. */
TEST(sgd_rules) {
  float p[2] = {1.0f, -2.0f}, g[2] = {0.5f, 0.25f};
  int64_t sz[1] = {2};
  pte_tensor tp, tg;
  pte_tensor_init(&tp, PTE_FLOAT32, 1, sz, p);
  pte_tensor_init(&tg, PTE_FLOAT32, 1, sz, g);
  pte_tensor *params[1] = {&tp};
  const pte_tensor *grads[1] = {&tg};
  pte_training_sgd_options o = PTE_TRAINING_SGD_OPTIONS_INIT;
  o.lr = 0.5;
  o.momentum = 0.5;
  o.dampening = 0.5;
  o.weight_decay = 0.5;
  pte_training_sgd *s = NULL;
  CHECK_OK(pte_training_sgd_create(params, 1, &o, &s));
  /* step 1: d = g + 0.5 p = (1, -0.75); buf = d; p -= 0.5 d -> (0.5, -1.625) */
  CHECK_OK(pte_training_sgd_step(s, grads, 1));
  CHECK(p[0] == 0.5f && p[1] == -1.625f, "step 1: %g %g", p[0], p[1]);
  /* step 2: d = g + 0.5 p = (0.75, -0.5625); buf = 0.5 buf + 0.5 d = (0.875, -0.65625);
   * p -= 0.5 buf -> (0.0625, -1.296875) */
  CHECK_OK(pte_training_sgd_step(s, grads, 1));
  CHECK(p[0] == 0.0625f && p[1] == -1.296875f, "step 2: %g %g", p[0], p[1]);
  pte_training_sgd_free(s);
  /* nesterov: d = g + m buf; first step buf = g: p -= lr (g + 0.5 g) */
  double q[1] = {1.0}, h[1] = {0.5};
  int64_t s1[1] = {1};
  pte_tensor tq, th;
  pte_tensor_init(&tq, PTE_FLOAT64, 1, s1, q);
  pte_tensor_init(&th, PTE_FLOAT64, 1, s1, h);
  pte_tensor *qs[1] = {&tq};
  const pte_tensor *hs[1] = {&th};
  o = (pte_training_sgd_options)PTE_TRAINING_SGD_OPTIONS_INIT;
  o.lr = 0.25;
  o.momentum = 0.5;
  o.nesterov = true;
  CHECK_OK(pte_training_sgd_create(qs, 1, &o, &s));
  CHECK_OK(pte_training_sgd_step(s, hs, 1));
  CHECK(q[0] == 1.0 - 0.25 * 0.75, "nesterov step 1: %.17g", q[0]);
  /* step 2: buf = 0.5 * 0.5 + 0.5 = 0.75; d = 0.5 + 0.5 * 0.75 = 0.875 */
  CHECK_OK(pte_training_sgd_set_lr(s, 1.0));
  CHECK_OK(pte_training_sgd_step(s, hs, 1));
  CHECK(q[0] == 1.0 - 0.25 * 0.75 - 0.875, "nesterov step 2: %.17g", q[0]);
  pte_training_sgd_free(s);
}

TEST(sgd_errors) {
  float p[2] = {0}, g[3] = {0};
  int64_t s2[1] = {2}, s3[1] = {3};
  pte_tensor tp, tg;
  pte_tensor_init(&tp, PTE_FLOAT32, 1, s2, p);
  pte_tensor_init(&tg, PTE_FLOAT32, 1, s3, g);
  pte_tensor *params[1] = {&tp};
  const pte_tensor *grads[1] = {&tg};
  pte_training_sgd *s = NULL;
  pte_training_sgd_options o = PTE_TRAINING_SGD_OPTIONS_INIT;
  o.nesterov = true;
  CHECK_FAILS(pte_training_sgd_create(params, 1, &o, &s), PTE_ERR_INVALID_ARGUMENT, "nesterov");
  o = (pte_training_sgd_options)PTE_TRAINING_SGD_OPTIONS_INIT;
  o.lr = -1;
  CHECK_FAILS(pte_training_sgd_create(params, 1, &o, &s), PTE_ERR_INVALID_ARGUMENT, "learning rate");
  o.lr = 0.1;
  o.abi = PTE_ABI_VERSION + 1;
  CHECK_FAILS(pte_training_sgd_create(params, 1, &o, &s), PTE_ERR_NOT_SUPPORTED, "ABI");
  o.abi = PTE_ABI_VERSION;
  int64_t si[1] = {2};
  int32_t ip[2] = {0};
  pte_tensor ti;
  pte_tensor_init(&ti, PTE_INT32, 1, si, ip);
  pte_tensor *iparams[1] = {&ti};
  CHECK_FAILS(pte_training_sgd_create(iparams, 1, &o, &s), PTE_ERR_INVALID_ARGUMENT, "float");
  CHECK_OK(pte_training_sgd_create(params, 1, &o, &s));
  CHECK_FAILS(pte_training_sgd_step(s, grads, 1), PTE_ERR_INVALID_ARGUMENT, "does not match");
  CHECK_FAILS(pte_training_sgd_step(s, grads, 2), PTE_ERR_INVALID_ARGUMENT, "2 gradients for 1");
  CHECK(p[0] == 0 && p[1] == 0, "a failed step changed the parameters");
  pte_training_sgd_free(s);
}

/* Every zoo training case: 20 steps, each loss within rtol of eager's. */
TEST(zoo_training_cases) {
  CHECK_OK(kernels());
  static const char *cases[] = {"mlp_sgd", "mlp_momentum", "cnn_nesterov", "transformer_momentum"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char rel[128];
    snprintf(rel, sizeof rel, "training/%s", cases[i]);
    tr_case c;
    CHECK(load_case(rel, &c), "%s: training.json", cases[i]);
    char pte[600];
    snprintf(pte, sizeof pte, "%s/model.pte", c.dir);
    pte_training_module *m = NULL;
    CHECK_OK(pte_training_load_file(pte, NULL, &m));
    double worst = 0;
    int32_t bad = -1;
    pte_status st = train_case(&c, m, &worst, &bad);
    pte_training_free(m);
    CHECK(st == PTE_OK, "%s: %s", cases[i], pte_last_error());
    printf("  %s: %d steps, worst relative loss error %.3g\n", cases[i], (int)c.steps, worst);
    CHECK(bad < 0, "%s: step %d loss off by more than %g (worst %g)", cases[i], (int)bad, c.rtol, worst);
  }
}

/* Trained parameters saved as .ptd load into the inference program
 * (exported with external constants) and give eager's trained output. */
TEST(save_ptd_for_inference) {
  CHECK_OK(kernels());
  static const char *cases[] = {"mlp_sgd", "cnn_nesterov"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char rel[128], path[700], ptd[256];
    snprintf(rel, sizeof rel, "training/%s", cases[i]);
    tr_case c;
    CHECK(load_case(rel, &c) && c.infer, "%s: training.json with an inference program", cases[i]);
    snprintf(path, sizeof path, "%s/model.pte", c.dir);
    pte_training_module *m = NULL;
    CHECK_OK(pte_training_load_file(path, NULL, &m));
    double worst;
    int32_t bad;
    CHECK_OK(train_case(&c, m, &worst, &bad));
    snprintf(ptd, sizeof ptd, "trained_%s.ptd", cases[i]);
    pte_status st = pte_training_save_ptd(m, ptd);
    pte_data_map *map = NULL;
    if (!st) st = pte_data_map_load_file(ptd, NULL, &map);
    /* every parameter, by name, with its layout and trained bytes */
    for (int32_t k = 0; !st && k < pte_training_parameter_count(m); k++) {
      const void *d;
      size_t n;
      pte_tensor layout;
      const pte_tensor *p = pte_training_parameter(m, k);
      st = pte_data_map_get(map, pte_training_parameter_name(m, k), &d, &n, &layout);
      if (!st && (n != pte_tensor_nbytes(p) || memcmp(d, p->data, n) != 0 || layout.dtype != p->dtype ||
                  layout.dim != p->dim || layout.sizes[0] != p->sizes[0]))
        st = pte_error(PTE_ERR_INTERNAL, "%s: saved entry differs", pte_training_parameter_name(m, k));
    }
    pte_training_free(m);
    if (st) pte_data_map_free(map);
    CHECK(st == PTE_OK, "%s: %s", cases[i], pte_last_error());
    CHECK(pte_data_map_count(map) == (int32_t)(i == 0 ? 4 : 8), "%d entries", (int)pte_data_map_count(map));
    pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
    po.data_maps = &map;
    po.num_data_maps = 1;
    pte_program *prog = NULL;
    pte_method *im = NULL;
    snprintf(path, sizeof path, "%s/inference.pte", c.dir);
    st = pte_program_load_file(path, &po, &prog);
    if (!st) st = pte_method_load(prog, "forward", NULL, &im);
    npy_array a;
    void *owned = NULL;
    pte_tensor x;
    snprintf(path, sizeof path, "%s/inputs/0.npy", c.dir);
    if (!st) st = npy_read_file(path, &a, &owned);
    if (!st) {
      pte_tensor_init(&x, a.dtype, a.dim, a.sizes, (void *)a.data);
      st = pte_method_set_input_tensor(im, 0, &x);
    }
    if (!st) st = pte_method_execute(im);
    const char *msg = NULL;
    if (!st) {
      snprintf(path, sizeof path, "%s/expected/inference.npy", c.dir);
      msg = compare_npy(pte_method_output(im, 0)->u.tensor, path, 1e-4, 1e-5);
    }
    free(owned);
    pte_method_free(im);
    pte_program_free(prog);
    pte_data_map_free(map);
    remove(ptd);
    CHECK(st == PTE_OK, "%s: inference: %s", cases[i], pte_last_error());
    CHECK(msg == NULL, "%s: inference output: %s", cases[i], msg);
  }
}

TEST_MAIN(T(metadata_and_parameters), T(parameters_are_writable_and_independent), T(not_a_training_program),
          T(sgd_rules), T(sgd_errors), T(zoo_training_cases), T(save_ptd_for_inference))
