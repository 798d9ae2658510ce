/* Pooling window arguments (see pool.h). */
#include "pool.h"

/* 1 or 2 values (0 values: dflt, for an empty stride). */
static bool pair(pte_value *const *args, int32_t nargs, int32_t i, const int64_t *dflt, int64_t *v) {
  int64_t t[2];
  int32_t n = k_arg_ints(args, nargs, i, t, 2);
  if (n == 0 && dflt) {
    v[0] = dflt[0], v[1] = dflt[1];
    return true;
  }
  if (n != 1 && n != 2) return false;
  v[0] = t[0];
  v[1] = n == 1 ? t[0] : t[1];
  return true;
}

bool o_pool_window(pte_value *const *args, int32_t nargs, const pte_tensor *x, int32_t k_arg, int32_t s_arg,
                   int32_t p_arg, int32_t dil_arg, o_win2d *w) {
  int64_t k[2], s[2], p[2], d[2] = {1, 1};
  if (x->dim != 3 && x->dim != 4) return false;
  if (!pair(args, nargs, k_arg, NULL, k) || !pair(args, nargs, s_arg, k, s) ||
      !pair(args, nargs, p_arg, NULL, p))
    return false;
  if (dil_arg >= 0 && !pair(args, nargs, dil_arg, NULL, d)) return false;
  if (k[0] < 1 || k[1] < 1 || s[0] < 1 || s[1] < 1 || p[0] < 0 || p[1] < 0 || d[0] < 1 || d[1] < 1)
    return false;
  w->IH = x->sizes[x->dim - 2];
  w->IW = x->sizes[x->dim - 1];
  for (int j = 0; j < 2; j++)
    if (k[j] > O_WINDOW_MAX || s[j] > O_WINDOW_MAX || p[j] > O_WINDOW_MAX || d[j] > O_WINDOW_MAX)
      return false;
  if (w->IH > O_WINDOW_MAX || w->IW > O_WINDOW_MAX) return false;
  if (p[0] * 2 > k[0] || p[1] * 2 > k[1]) return false; /* ATen: pad at most half the kernel */
  w->KH = k[0], w->KW = k[1], w->sh = s[0], w->sw = s[1], w->ph = p[0], w->pw = p[1], w->dh = d[0],
  w->dw = d[1];
  w->OH = (w->IH + 2 * p[0] - d[0] * (k[0] - 1) - 1) / s[0] + 1;
  w->OW = (w->IW + 2 * p[1] - d[1] * (k[1] - 1) - 1) / s[1] + 1;
  return w->OH > 0 && w->OW > 0 && w->IH + 2 * p[0] - d[0] * (k[0] - 1) - 1 >= 0 &&
         w->IW + 2 * p[1] - d[1] * (k[1] - 1) - 1 >= 0;
}

void o_pool_out_sizes(const pte_tensor *x, const o_win2d *w, int64_t *sizes) {
  for (int32_t i = 0; i < x->dim; i++) sizes[i] = x->sizes[i];
  sizes[x->dim - 2] = w->OH;
  sizes[x->dim - 1] = w->OW;
}
