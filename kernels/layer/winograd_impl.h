/* The Winograd tile transforms for one vector width (winograd.c: generic,
 * winograd_avx2.c, winograd_avx512.c include this with WV and WINO_SUFFIX
 * set, each under its ISA's flags). Vectors run over channels: NHWC reads
 * and writes them contiguously, NCHW (channel stride the plane) through
 * per-lane loads and stores. GCC/Clang vector extensions: the arithmetic
 * is the same on every width, only the register size changes.
 *
 * F(m x m, 3 x 3), m = 4 (6 x 6 tiles) or 2 (4 x 4), with Lavin & Gray's
 * points 0, +-1, +-2 (m = 4) and 0, +-1 (m = 2):
 *   V = B^T d B,  Y = A^T M A. */
#include <string.h>

#include "winograd.h"

#define WCAT2(a, b) a##b
#define WCAT(a, b) WCAT2(a, b)

typedef float wv __attribute__((vector_size(WV * 4)));
typedef int32_t wi __attribute__((vector_size(WV * 4)));

static inline wv wsplat(float f) {
  wv v;
  for (int i = 0; i < WV; i++) v[i] = f;
  return v;
}

/* n lanes from p (stride s), the rest zero */
static inline wv wload(const float *p, int64_t s, int n) {
  wv v;
  if (s == 1 && n == WV) {
    memcpy(&v, p, sizeof v);
    return v;
  }
  v = wsplat(0.0f);
  for (int i = 0; i < n; i++) v[i] = p[i * s];
  return v;
}

static inline void wstore(float *p, int64_t s, int n, wv v) {
  if (s == 1 && n == WV) {
    memcpy(p, &v, sizeof v);
    return;
  }
  for (int i = 0; i < n; i++) p[i * s] = v[i];
}

/* rows of B^T: 6 inputs to 6 outputs (m = 4) */
static inline void bt6(const wv d[6], wv o[6]) {
  const wv f4 = wsplat(4.0f), f5 = wsplat(5.0f), f2 = wsplat(2.0f);
  wv a = d[4] - f4 * d[2], b = d[3] - f4 * d[1]; /* o1, o2 share these */
  wv c = d[4] - d[2], e = f2 * (d[3] - d[1]);    /* o3, o4 */
  o[0] = f4 * d[0] - f5 * d[2] + d[4];
  o[1] = a + b;
  o[2] = a - b;
  o[3] = c + e;
  o[4] = c - e;
  o[5] = f4 * d[1] - f5 * d[3] + d[5];
}

/* rows of B^T (m = 2) */
static inline void bt4(const wv d[4], wv o[4]) {
  o[0] = d[0] - d[2];
  o[1] = d[1] + d[2];
  o[2] = d[2] - d[1];
  o[3] = d[1] - d[3];
}

/* rows of A^T: 6 to 4 (m = 4) */
static inline void at6(const wv m[6], wv o[4]) {
  const wv f2 = wsplat(2.0f), f4 = wsplat(4.0f), f8 = wsplat(8.0f);
  wv p12 = m[1] + m[2], m12 = m[1] - m[2], p34 = m[3] + m[4], m34 = m[3] - m[4];
  o[0] = m[0] + p12 + p34;
  o[1] = m12 + f2 * m34;
  o[2] = p12 + f4 * p34;
  o[3] = m12 + f8 * m34 + m[5];
}

/* rows of A^T (m = 2) */
static inline void at4(const wv m[4], wv o[2]) {
  o[0] = m[0] + m[1] + m[2];
  o[1] = m[1] - m[2] - m[3];
}

/* G applied to 3 values (m = 4: 6 out, m = 2: 4 out) */
static inline void gk(int m, const wv g[3], wv o[6]) {
  if (m == 4) {
    const wv q = wsplat(0.25f), s6 = wsplat(1.0f / 6), s12 = wsplat(1.0f / 12), s24 = wsplat(1.0f / 24);
    wv p02 = g[0] + g[2];
    o[0] = q * g[0];
    o[1] = -s6 * (p02 + g[1]);
    o[2] = -s6 * (p02 - g[1]);
    wv e = s24 * g[0] + s6 * g[2], f = s12 * g[1];
    o[3] = e + f;
    o[4] = e - f;
    o[5] = g[2];
  } else {
    const wv h = wsplat(0.5f);
    o[0] = g[0];
    o[1] = h * (g[0] + g[1] + g[2]);
    o[2] = h * (g[0] - g[1] + g[2]);
    o[3] = g[2];
  }
}

/* half a float vector widened to one register of doubles */
#define WH (WV / 2)
typedef double wd __attribute__((vector_size(WH * 8)));
typedef float wh __attribute__((vector_size(WH * 4)));

void WCAT(k_wino_row_, WINO_SUFFIX)(const float *w, const int64_t *off, const double *c, int nt, int64_t X,
                                    float *out) {
  wd ct[9];
  for (int t = 0; t < nt; t++)
    for (int i = 0; i < WH; i++) ct[t][i] = c[t];
  int64_t x = 0;
  for (; x + WH <= X; x += WH) {
    wd s;
    for (int i = 0; i < WH; i++) s[i] = 0.0;
    for (int t = 0; t < nt; t++) {
      wh v;
      memcpy(&v, w + off[t] + x, sizeof v);
      s += ct[t] * __builtin_convertvector(v, wd);
    }
    wh r = __builtin_convertvector(s, wh);
    memcpy(out + x, &r, sizeof r);
  }
  for (; x < X; x++) {
    double s = 0.0;
    for (int t = 0; t < nt; t++) s += c[t] * w[off[t] + x];
    out[x] = (float)s;
  }
}

void WCAT(k_wino_filter_, WINO_SUFFIX)(const k_wino_filter *f) {
  const int a = f->m + 2;
  for (int64_t ic = f->ic0; ic < f->ic1; ic++)
    for (int64_t oc = 0; oc < f->OC; oc += WV) {
      const int n = f->OC - oc < WV ? (int)(f->OC - oc) : WV;
      const float *w = f->w + oc * f->s_oc + ic * f->s_ic;
      wv g[3][3], t[6][3], col[3], out[6];
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) g[i][j] = wload(w + i * f->s_kh + j * f->s_kw, f->s_oc, n);
      for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 3; i++) col[i] = g[i][j];
        gk(f->m, col, out);
        for (int i = 0; i < a; i++) t[i][j] = out[i];
      }
      for (int i = 0; i < a; i++) {
        gk(f->m, t[i], out);
        for (int j = 0; j < a; j++)
          wstore(f->tmp + ((int64_t)(i * a + j) * f->C + ic) * f->OC + oc, 1, n, out[j]);
      }
    }
}

void WCAT(k_wino_in_, WINO_SUFFIX)(const k_wino_tile_in *t) {
  const int a = t->m + 2;
  /* the tile's rows and columns inside the image; the rest is padding */
  int ilo = t->y0 < 0 ? (int)-t->y0 : 0, jlo = t->x0 < 0 ? (int)-t->x0 : 0;
  int ihi = t->H - t->y0 < a ? (int)(t->H - t->y0) : a, jhi = t->W - t->x0 < a ? (int)(t->W - t->x0) : a;
  if (ihi < ilo) ihi = ilo;
  if (jhi < jlo) jhi = jlo;
  const wv zero = wsplat(0.0f);
  for (int64_t c = 0; c < t->C; c += WV) {
    const int n = t->C - c < WV ? (int)(t->C - c) : WV;
    const float *x = t->x + c * t->sc;
    wv d[6][6], r[6][6], col[6], out[6];
    for (int i = 0; i < a; i++)
      for (int j = 0; j < a; j++)
        d[i][j] = i >= ilo && i < ihi && j >= jlo && j < jhi
                      ? wload(x + (t->y0 + i) * t->sh + (t->x0 + j) * t->sw, t->sc, n)
                      : zero;
    /* columns first (B^T d), then rows ((B^T d) B) */
    for (int j = 0; j < a; j++) {
      for (int i = 0; i < a; i++) col[i] = d[i][j];
      if (a == 6) bt6(col, out);
      else bt4(col, out);
      for (int i = 0; i < a; i++) r[i][j] = out[i];
    }
    float *v = t->v + c;
    for (int i = 0; i < a; i++) {
      if (a == 6) bt6(r[i], out);
      else bt4(r[i], out);
      for (int j = 0; j < a; j++) wstore(v + (int64_t)(i * a + j) * t->vs, 1, n, out[j]);
    }
  }
}

void WCAT(k_wino_out_, WINO_SUFFIX)(const k_wino_tile_out *t) {
  const int a = t->m + 2, m = t->m;
  const wv lo = wsplat(t->lo), hi = wsplat(t->hi);
  for (int64_t c = 0; c < t->C; c += WV) {
    const int n = t->C - c < WV ? (int)(t->C - c) : WV;
    const float *src = t->mm + c;
    wv r[4][6], row[6], out[4];
    for (int j = 0; j < a; j++) {
      for (int i = 0; i < a; i++) row[i] = wload(src + (int64_t)(i * a + j) * t->ms, 1, n);
      if (a == 6) at6(row, out);
      else at4(row, out);
      for (int i = 0; i < m; i++) r[i][j] = out[i];
    }
    const wv b = t->bias ? wload(t->bias + c, 1, n) : wsplat(0.0f);
    float *y = t->y + c * t->sc;
    for (int i = 0; i < t->rows; i++) {
      if (a == 6) at6(r[i], out);
      else at4(r[i], out);
      for (int j = 0; j < t->cols; j++) {
        wv v = out[j] + b;
        if (t->clamp) {
          /* NaN stays NaN: both comparisons are false */
          wi l = v<lo, h = v> hi;
          v = (wv)(((wi)v & ~l) | ((wi)lo & l));
          v = (wv)(((wi)v & ~h) | ((wi)hi & h));
        }
        wstore(y + i * t->sh + j * t->sw, t->sc, n, v);
      }
    }
  }
}
