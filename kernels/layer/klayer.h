/* The kernel layer: what every kernel family (portable, optimized, the
 * runtime's prim ops, the XNNPACK delegate's own nodes) needs and used to
 * write for itself: argument access, output resizing, failure reporting,
 * kernel scratch, the instruction-set choice, one parallel-for with one cost
 * model, the float32 matrix product and strided copies.
 *
 * A private static library (pterun_kernel_layer): hidden symbols, never
 * installed, not a component. Its API follows the kernels, so nothing out of
 * tree may depend on it. Each object holds one group below, so a library
 * pulls only the groups it calls (the runtime: arguments, outputs). */
#ifndef PTERUN_KLAYER_H
#define PTERUN_KLAYER_H

#include <pterun/runtime.h>

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* Failure reporting (macros: they need the caller's `ctx`)               */
/* ---------------------------------------------------------------------- */

#define K_FAIL(...) pte_kernel_fail(ctx, PTE_ERR_KERNEL, __VA_ARGS__)
#define K_CHECK(expr)          \
  do {                         \
    pte_status k_st_ = (expr); \
    if (k_st_) return k_st_;   \
  } while (0)

/* ---------------------------------------------------------------------- */
/* Execute-time arguments: a wrong tag fails the kernel with a message     */
/* ---------------------------------------------------------------------- */

pte_status k_nargs(pte_kernel_ctx *ctx, int32_t nargs, int32_t expected);
/* "argument i is a <tag>, expected <want>" */
pte_status k_wrong_tag(pte_kernel_ctx *ctx, int32_t i, const pte_value *v, const char *want);
pte_status k_tensor(pte_kernel_ctx *ctx, pte_value **args, int32_t i, pte_tensor **out);
/* None → *out = NULL */
pte_status k_opt_tensor(pte_kernel_ctx *ctx, pte_value **args, int32_t i, pte_tensor **out);
pte_status k_int(pte_kernel_ctx *ctx, pte_value **args, int32_t i, int64_t *out);
/* None → *present = false */
pte_status k_opt_int(pte_kernel_ctx *ctx, pte_value **args, int32_t i, int64_t *out, bool *present);
pte_status k_double(pte_kernel_ctx *ctx, pte_value **args, int32_t i, double *out);
pte_status k_opt_double(pte_kernel_ctx *ctx, pte_value **args, int32_t i, double *out, bool *present);
pte_status k_bool(pte_kernel_ctx *ctx, pte_value **args, int32_t i, bool *out);
/* IntList of at most `max` entries. */
pte_status k_int_list(pte_kernel_ctx *ctx, pte_value **args, int32_t i, int64_t *out, int32_t max,
                      int32_t *n);
/* IntList or None (→ *n = -1). */
pte_status k_opt_int_list(pte_kernel_ctx *ctx, pte_value **args, int32_t i, int64_t *out, int32_t max,
                          int32_t *n);
pte_status k_string(pte_kernel_ctx *ctx, pte_value **args, int32_t i, const char **out);
/* Tensor[]: a TensorList (items are Tensor values). */
pte_status k_tensor_list(pte_kernel_ctx *ctx, pte_value **args, int32_t i, pte_value *const **items,
                         int32_t *n);
/* Tensor?[]: an OptionalTensorList (items may be NULL), or a TensorList. */
pte_status k_opt_tensor_list(pte_kernel_ctx *ctx, pte_value **args, int32_t i, pte_value *const **items,
                             int32_t *n);
/* Optional dtype argument (Int ScalarType code, or None → *present = false). */
pte_status k_opt_dtype(pte_kernel_ctx *ctx, pte_value **args, int32_t i, int32_t *dtype, bool *present);

/* A Scalar argument (Int, Double or Bool EValue). */
typedef struct k_scalar {
  int32_t dtype; /* PTE_INT64, PTE_FLOAT64 or PTE_BOOL */
  int64_t i;
  double d;
} k_scalar;
pte_status k_scalar_arg(pte_kernel_ctx *ctx, pte_value **args, int32_t i, k_scalar *out);
/* A 0-dim tensor over a scalar's storage (for treating Scalar args like tensors). */
void k_scalar_tensor(const k_scalar *s, pte_tensor *t);

/* Wrap a possibly negative dim into [0, rank) (rank 0 accepts -1 and 0):
 * k_wrap_dim answers -1 when out of range, k_dim fails the kernel. */
int32_t k_wrap_dim(int64_t dim, int32_t rank);
pte_status k_dim(pte_kernel_ctx *ctx, int64_t dim, int32_t rank, int32_t *out);

/* ---------------------------------------------------------------------- */
/* Accept-time arguments: answers, no failures (a kernel that declines     */
/* leaves the operator to the next library). NULL or false when argument i */
/* is missing or of another tag.                                          */
/* ---------------------------------------------------------------------- */

static inline pte_tensor *k_arg_tensor(pte_value *const *args, int32_t nargs, int32_t i) {
  if (i >= nargs || !args[i] || args[i]->tag != PTE_TAG_TENSOR) return NULL;
  return args[i]->u.tensor;
}
static inline bool k_arg_tag(pte_value *const *args, int32_t nargs, int32_t i, int32_t tag) {
  return i < nargs && args[i] && args[i]->tag == tag;
}
static inline bool k_arg_none(pte_value *const *args, int32_t nargs, int32_t i) {
  return k_arg_tag(args, nargs, i, PTE_TAG_NONE);
}
/* Int/Double/Bool value as double. */
bool k_arg_num(pte_value *const *args, int32_t nargs, int32_t i, double *out);
/* IntList (at most max entries): count, or -1. */
int32_t k_arg_ints(pte_value *const *args, int32_t nargs, int32_t i, int64_t *out, int32_t max);
/* Row-major dim order. */
bool k_default_order(const pte_tensor *t);
/* A float32 tensor in default dim order (what the optimized kernels run). */
static inline bool k_is_f32(const pte_tensor *t) {
  return t && t->dtype == PTE_FLOAT32 && k_default_order(t);
}
static inline bool k_arg_f32(pte_value *const *args, int32_t nargs, int32_t i) {
  return k_is_f32(k_arg_tensor(args, nargs, i));
}

/* ---------------------------------------------------------------------- */
/* Outputs and data                                                       */
/* ---------------------------------------------------------------------- */

/* Resize `out` to sizes (checking bounds), refuse read-only (constant)
 * tensors, and make sure it has memory. */
pte_status k_out(pte_kernel_ctx *ctx, pte_tensor *out, int32_t dim, const int64_t *sizes);
/* Same shape as `like`. */
pte_status k_out_like(pte_kernel_ctx *ctx, pte_tensor *out, const pte_tensor *like);
/* Fail unless `t` is contiguous (name used in the message). */
pte_status k_contiguous(pte_kernel_ctx *ctx, const pte_tensor *t, const char *name);
/* Fail unless `t` has data (when it has elements). */
pte_status k_has_data(pte_kernel_ctx *ctx, const pte_tensor *t, const char *name);
/* Do the bytes of a and b overlap? A hostile memory plan can place an
 * operator's output over part of an input; kernels that copy with memcpy
 * (undefined on overlap) refuse that through k_disjoint. */
bool k_overlap(const pte_tensor *a, const pte_tensor *b);
/* Fail ("out must not share memory with <name>") when out and in overlap. */
pte_status k_disjoint(pte_kernel_ctx *ctx, const pte_tensor *out, const pte_tensor *in, const char *name);
/* Fail unless every tensor argument (and tensor-list item) with elements
 * has memory: a hostile program can leave a tensor without any. */
pte_status k_args_have_data(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs);

/* Kernel scratch reserved at load (the kernel's scratch_size), 64-byte
 * aligned; *size receives the usable bytes (0 and NULL when none). */
void *k_scratch(pte_kernel_ctx *ctx, size_t *size);
/* Bytes rounded up to a whole number of 64-byte lines. */
static inline size_t k_align64(size_t bytes) { return (bytes + 63) & ~(size_t)63; }
/* Round a scratch request up and leave room for that alignment. */
static inline size_t k_scratch_round(size_t bytes) { return bytes ? k_align64(bytes) + 64 : 0; }

/* ---------------------------------------------------------------------- */
/* Instruction sets                                                       */
/* ---------------------------------------------------------------------- */

/* x86-64 (generic < AVX2 < AVX-512, which here means F and BW) or aarch64
 * (generic < NEON): a process only ever sees its own architecture's. */
typedef enum k_isa { K_ISA_GENERIC = 0, K_ISA_AVX2 = 1, K_ISA_AVX512 = 2, K_ISA_NEON = 3 } k_isa;
/* Chosen once per process from the CPU (and PTERUN_OPT_ISA, which can only
 * lower it; naming another architecture's set changes nothing). */
k_isa k_isa_get(void);
const char *k_isa_name(k_isa isa);

/* Whether output bounds [lo, hi] clamp anything: all but (-inf, +inf), the
 * "no bounds" of XNNPACK's nodes and of the descriptors here. */
static inline bool k_clamps(float lo, float hi) { return !(lo == -INFINITY && hi == INFINITY); }

/* ---------------------------------------------------------------------- */
/* Parallel loops over the process pool                                   */
/* ---------------------------------------------------------------------- */

/* When splitting over the pool pays (measured on 2 cores): besides waking
 * the pool, a split moves the data between the cores' caches (the next
 * operator reads what another core wrote), which halved per-thread speed
 * on the zoo's small layers. So products are split from about 2^20
 * multiply-adds (~7 us on one core), other loops from 2^17 element
 * operations. */
#define K_PAR_MIN_FLOPS 1048576.0
#define K_PAR_MIN_OPS 131072.0

/* A range of a loop: the same type as the pool's pte_parallel_fn (this
 * header stays free of component headers: the runtime includes it). */
typedef void (*k_range_fn)(void *ctx, size_t begin, size_t end);

/* Threads of the process pool (never 0). */
size_t k_threads(void);
/* Per-thread slices of scratch for loops that need private buffers: the
 * work is cut into at most k_slots() chunks, chunk i uses slot i. */
size_t k_slots(void);
/* Run fn over [0, n) on the pool when the loop is worth splitting (`cost`
 * is the whole loop's work in rough element-operations; below
 * K_PAR_MIN_OPS it runs inline). Chunks are a few per thread so a busy
 * core does not hold the others back. */
void k_parallel_for(size_t n, double cost, k_range_fn fn, void *ctx);
/* Run fn(ctx, c, c + 1) for each of `chunks` chunks, on the pool when more
 * than one. For loops that cut their work by per-thread scratch (chunk c
 * uses slot c < k_slots()): they decide whether to split with the same
 * K_PAR_MIN_* model, then hand over the chunks here. */
void k_parallel_chunks(size_t chunks, k_range_fn fn, void *ctx);
/* First work item of chunk c of `chunks` (`items` when c == chunks) for a
 * product cut into column panels of `per` items each (row groups), every
 * panel `unit` columns wide but the last, `last` wide: chunks get equal
 * columns, not equal item counts (196 columns are 6 panels of 32 and one of
 * 4; by count the chunk holding the 4 did a third less). */
int64_t k_chunk_first(int64_t c, int64_t chunks, int64_t items, int64_t per, int64_t unit, int64_t last);

/* ---------------------------------------------------------------------- */
/* float32 matrix product                                                 */
/* ---------------------------------------------------------------------- */

/* Fill dst[kc][NR] with B[k0 .. k0+kc, j0 .. j0+nr], zero-padding columns
 * nr .. NR (for B that is not a matrix in memory: convolution's im2col). */
typedef void (*k_pack_b_fn)(const void *user, int64_t k0, int64_t kc, int64_t j0, int64_t nr, int64_t NR,
                            float *dst);

/* C[M,N] = alpha * A[M,K] @ B[K,N] + beta * bias, or C += alpha * A @ B
 * when `accumulate`. Strides are in elements. The bias is a row vector
 * (col_bias, N entries), a column vector (row_bias, M entries) or a matrix
 * (bias with strides sbias0/sbias1, 0 to broadcast); with beta == 0 it is
 * not read. Zero-initialize the struct and fill what applies. */
typedef struct k_sgemm_desc {
  int64_t M, N, K;
  const float *a;
  int64_t sa0, sa1;
  const float *b; /* dense B (when pack_b is NULL) */
  int64_t sb0, sb1;
  k_pack_b_fn pack_b;
  const void *pack_user;
  float *c;
  int64_t sc0, sc1; /* sc1 == 0 means 1 */
  float alpha, beta;
  const float *row_bias, *col_bias, *bias;
  int64_t sbias0, sbias1;
  bool accumulate;
  /* Fused clamp of the result into [lo, hi] (after bias and accumulation). */
  bool clamp;
  float lo, hi;
  /* Packing space, 64-byte aligned (k_sgemm_scratch bytes for a parallel
   * run, k_sgemm_scratch_min for a serial one; if the pool grew since it
   * was sized, fewer threads share the work). NULL (or less than the
   * minimum): each thread packs into 32 KB of its own stack, in smaller
   * blocks. */
  float *scratch;
  size_t scratch_bytes;
  bool parallel; /* split over the pool when big enough */
  /* B packed once by k_sgemm_pack_b (a constant weight): the blocked
   * product reads its panels in place instead of packing B per call, at
   * every shape (few rows too), and never reads b. Used only with scratch
   * of at least k_sgemm_scratch_min; without it b, sb0, sb1 are read, or,
   * when b is NULL (B exists only packed: Winograd's transformed filters),
   * nothing is computed. */
  const float *b_packed;
} k_sgemm_desc;

/* Widest microkernel tile (columns), for callers sizing buffers that the
 * microkernels read past the last column. */
#define K_SGEMM_NR_MAX 32
#define K_SGEMM_MR_MAX 8

size_t k_sgemm_scratch(int64_t M, int64_t N, int64_t K);
size_t k_sgemm_scratch_min(int64_t M, int64_t N, int64_t K);
/* Floats of B [K, N] (strides sb0, sb1) packed for this CPU's microkernel,
 * and the packing into dst (64-byte aligned, that many floats; padding
 * between panels is left as it was). */
size_t k_sgemm_packed_b_floats(int64_t N, int64_t K);
void k_sgemm_pack_b(const float *b, int64_t sb0, int64_t sb1, int64_t N, int64_t K, float *dst);
/* The same for B that is not a matrix in memory (Winograd's transformed
 * filters, computed as they are packed): fn fills each panel. */
void k_sgemm_pack_b_fn(k_pack_b_fn fn, const void *user, int64_t N, int64_t K, float *dst);
/* Goto-style: A packed into MR-row panels, B into NR-column panels, an
 * AVX-512 8x32, AVX2 4x24 or generic 4x16 register-blocked microkernel. */
void k_sgemm(const k_sgemm_desc *g);
/* The work k_sgemm counts against K_PAR_MIN_FLOPS to split a product over
 * the pool: its multiply-adds, or for few rows the time its B streams in. */
double k_sgemm_split_cost(int64_t M, int64_t N, int64_t K);

/* Batched products over `dims` batch dims (row-major, sizes[d]): product
 * (i0, i1, ...) reads A at sum i_d * sa[d] (element strides, 0 to
 * broadcast), B at sum i_d * sb[d] and writes C at sum i_d * sc[d], each
 * relative to g's pointers; the biases are the same for every product.
 * With g->parallel and at least as many products as threads, the products
 * are split over the pool (each serial on its thread's stack; cut into row
 * bands when fewer than 4 a thread do not divide evenly), else each product
 * runs on its own. Scratch (optional) is cut into one slice per chunk of
 * products when they are split; k_sgemm_batched_scratch is what packs
 * every product in it. */
void k_sgemm_batched(const k_sgemm_desc *g, int32_t dims, const int64_t *sizes, const int64_t *sa,
                     const int64_t *sb, const int64_t *sc);
size_t k_sgemm_batched_scratch(int64_t M, int64_t N, int64_t K);

/* ---------------------------------------------------------------------- */
/* Winograd F(m x m, 3 x 3) float32 convolution (winograd*.c)             */
/* ---------------------------------------------------------------------- */

/* 3x3 kernels, stride 1, dilation 1, one group: F(4x4, 3x3) (6x6 tiles,
 * 4x fewer multiplies than direct) or F(2x2, 3x3) (4x4 tiles, 2.25x).
 * The filter is transformed (G g G^T) and packed for k_sgemm
 * once; a run transforms a block of input tiles (B^T d B), multiplies
 * each of the (m+2)^2 tile points by its packed filter and writes the
 * output transform (A^T M A) with bias and clamp, block by block. Less
 * exact than direct: errors grow with the input channels and m (see
 * tests/kernel_layer/test_winograd.c). Layout by strides: NCHW and NHWC
 * run the same code (NHWC, channels contiguous, is the faster). */
typedef struct k_wino_plan {
  int64_t C, OC, H, W, OH, OW; /* output OH x OW; inputs outside H x W are zero */
  int32_t pt, pl, m;           /* top and left padding; m = 2 or 4 */
  int64_t tiles_h, tiles_w, tb, ob, nob;
  size_t block_floats; /* one packed (tile point, output channel block) filter */
  size_t u_floats;     /* the packed filter (k_wino_pack's u) */
  size_t slot_bytes;   /* one thread's scratch */
} k_wino_plan;

/* The tile size to use for this shape (measured, see winograd.c): 0 (run
 * the direct path), 2 or 4. PTERUN_CONV_WINOGRAD=0 disables Winograd, =2 or
 * =4 forces that tile (for tests). */
int32_t k_wino_choose(int64_t C, int64_t OC, int64_t OH, int64_t OW);
/* false for sizes out of range (m not 2 or 4, nonpositive, over 2^20). */
bool k_wino_plan_init(k_wino_plan *p, int64_t C, int64_t OC, int64_t H, int64_t W, int64_t OH, int64_t OW,
                      int32_t pt, int32_t pl, int32_t m);
/* Transform and pack the filter w[oc*s_oc + ic*s_ic + kh*s_kh + kw*s_kw]
 * into u (p->u_floats, 64-byte aligned), each transformed point computed
 * in double as it is packed (for load time: nothing allocated, 9
 * multiply-adds per packed float). The layout follows this CPU's k_sgemm. */
void k_wino_pack(const k_wino_plan *p, const float *w, int64_t s_oc, int64_t s_ic, int64_t s_kh, int64_t s_kw,
                 float *u);
/* The same through `copy` (k_wino_pack_copy_floats, or NULL: straight from
 * w), where the filter is first copied with its output channels contiguous
 * (several times faster to pack from a layout that has them strided), times
 * scale[oc] when scale is not NULL (the float product, as a batch norm
 * folded into w holds it; w itself unchanged). false, nothing written, for
 * a scale without a copy. */
size_t k_wino_pack_copy_floats(const k_wino_plan *p);
bool k_wino_pack_scaled(const k_wino_plan *p, const float *w, int64_t s_oc, int64_t s_ic, int64_t s_kh,
                        int64_t s_kw, const float *scale, float *copy, float *u);
/* The same into the caller's temporary of k_wino_pack_tmp_floats floats,
 * nothing allocated: vectorized, for a filter that is not constant (run
 * per call). The packing zero-pads the last panel's columns; the gaps
 * between panels it leaves are never read. */
size_t k_wino_pack_tmp_floats(const k_wino_plan *p);
void k_wino_pack_with(const k_wino_plan *p, const float *w, int64_t s_oc, int64_t s_ic, int64_t s_kh,
                      int64_t s_kw, float *u, float *tmp);
/* Scratch for a run on every slot of the pool (fewer fit: fewer threads). */
size_t k_wino_scratch(const k_wino_plan *p);

typedef struct k_wino_desc {
  const k_wino_plan *p;
  int64_t N;
  const float *x; /* x[n*sxn + c*sxc + h*sxh + w*sxw] */
  int64_t sxn, sxc, sxh, sxw;
  float *y; /* y[n*syn + oc*syc + oh*syh + ow*syw], must not overlap x */
  int64_t syn, syc, syh, syw;
  const float *u;    /* k_wino_pack's */
  const float *bias; /* OC entries or NULL */
  bool clamp;        /* y clamped into [lo, hi] */
  float lo, hi;
  void *scratch;
  size_t scratch_bytes;
  bool parallel;
} k_wino_desc;

/* false (nothing written) when scratch holds less than one slot. Nothing
 * is allocated. */
bool k_wino_conv(const k_wino_desc *d);

/* ---------------------------------------------------------------------- */
/* int8 matrix product: dynamically quantized activations x int8/int4      */
/* weights, float32 out (qgemm*.c)                                         */
/* ---------------------------------------------------------------------- */

/* qd8: one row of activations quantized at run time to int8, asymmetric,
 * the way XNNPACK's qd8 convert does it: the row's range is widened to
 * hold 0, [rmin, rmax] maps onto [-128, 127] (inverse step 255 / (rmax -
 * rmin) in float, 1 for an all-zero row), the zero point is the one whose
 * rounding error is smaller (from rmin or from rmax), clamped and rounded
 * half to even; q = clamp(rint(x * inv_step) + zero_point). `scale` is
 * the dequantization step, 1 / inv_step. */
typedef struct k_qd8_params {
  int32_t zero_point; /* -128 .. 127 */
  float scale;
} k_qd8_params;

/* Quantize M rows of K floats (row stride lda elements) into q (row stride
 * ldq bytes, ldq >= K), one k_qd8_params per row. Non-finite inputs give
 * unspecified (but in-range) values. */
void k_qd8_quantize_rows(int64_t M, int64_t K, const float *a, int64_t lda, int8_t *q, int64_t ldq,
                         k_qd8_params *params);

/* Weights as the caller holds them, described for packing: W[n][k] (n <
 * N output channels, k < K), value w = stored - zero point, times a scale
 * per channel (group == 0 or K) or per group of `group` consecutive k
 * (K % group == 0, group % 4 == 0 unless group == K). */
typedef enum k_qw_bits { K_QW_INT8 = 8, K_QW_INT4 = 4 } k_qw_bits;
typedef struct k_qgemm_weights {
  int64_t N, K;
  k_qw_bits bits;
  /* Storage: element (r, c) of a row-major matrix with rows of `stride`
   * bytes (0: the densest, K or (K + 1) / 2 bytes, N when transposed); its
   * rows are n and columns k, or with `transposed` rows k and columns n.
   * int8: one signed byte per element. int4: two per byte along the row,
   * column c in the low nibble when c is even; a nibble is unsigned 0..15
   * (XNNPACK's qcint4/qbint4, usually with zero_point 8) or, with
   * `nibble_signed`, two's complement -8..7. */
  const void *data;
  int64_t stride;
  bool transposed;
  bool nibble_signed;
  /* Subtracted from every stored value (XNNPACK: 0 for int8, 8 for uint4
   * nibbles); per-scale zero points (same shape as the scales) are added
   * to it when given. The result must fit in int8. */
  int32_t zero_point;
  const int8_t *zero_points;
  int64_t group;
  /* Scales: float32, or bfloat16 (`scale_bf16`, XNNPACK's qbint4 group
   * scales): N entries, or N x (K / group) with the group fastest. */
  const float *scale;
  const uint16_t *scale_bf16;
  /* Optional N float32 biases, folded into the packed weights. */
  const float *bias;
} k_qgemm_weights;

/* The packed weights (opaque: the layout follows the microkernels and may
 * change). Built once at load into a caller's buffer of k_qgemm_packed_size
 * bytes, 64-byte aligned; read-only afterwards and shareable by threads. */
typedef struct k_qgemm_packed k_qgemm_packed;

/* Bytes needed for packing w, or 0 when w is not valid (then *err, when
 * err is not NULL, says why: shape, group, bits, missing data or scales). */
size_t k_qgemm_packed_size(const k_qgemm_weights *w, const char **err);
/* Pack w into dst (bytes >= k_qgemm_packed_size). Fails (NULL, *err set)
 * on invalid descriptions, values that do not fit after the zero point,
 * zero, negative or non-finite scales, a short or misaligned buffer. */
const k_qgemm_packed *k_qgemm_pack(const k_qgemm_weights *w, void *dst, size_t bytes, const char **err);
int64_t k_qgemm_packed_n(const k_qgemm_packed *p);
int64_t k_qgemm_packed_k(const k_qgemm_packed *p);

/* C[M,N] = clamp(sum_k (qa[m][k] - zp_m) * scale_m * w[n][k] * wscale + bias[n]).
 * Zero-initialize and fill what applies. */
typedef struct k_qgemm_desc {
  int64_t M;
  const k_qgemm_packed *w;
  /* Activations: already quantized (qa, row stride sqa bytes, one
   * k_qd8_params per row: XNNPACK's qd8 tensors) or float32 (a, row stride
   * sa elements; quantized here row by row with k_qd8_quantize_rows). */
  const int8_t *qa;
  int64_t sqa;
  const k_qd8_params *qparams;
  const float *a;
  int64_t sa;
  float *c;
  int64_t sc; /* row stride of C in elements (columns are contiguous) */
  /* Fused clamp into [lo, hi] after the bias. */
  bool clamp;
  float lo, hi;
  /* Space for the quantized activations when `a` is float32: at least
   * k_qgemm_scratch(M, K) bytes, 64-byte aligned. NULL: allocated per call
   * (k_qgemm then fails only if that allocation does). Unused with qa. */
  void *scratch;
  size_t scratch_bytes;
  bool parallel; /* split over the pool when big enough */
} k_qgemm_desc;

size_t k_qgemm_scratch(int64_t M, int64_t K);
/* The work k_qgemm counts against K_PAR_MIN_FLOPS to split a product of M
 * rows over the pool (as k_sgemm_split_cost; its weights' bytes as packed). */
double k_qgemm_split_cost(const k_qgemm_packed *p, int64_t M);
/* false only when float32 activations need scratch that cannot be had. */
bool k_qgemm(const k_qgemm_desc *g);
/* The microkernel k_qgemm runs here: "avx512vnni", "avxvnni", "avx2",
 * "neondot", "neon" or "generic" (from the CPU and PTERUN_OPT_ISA;
 * "avx2-novnni" and "neon-nodot" pick the kernels without dot-product
 * instructions on a CPU that has them). */
const char *k_qgemm_kernel(void);
/* The float arithmetic every k_qgemm kernel follows is that of XNNPACK's
 * kernels on this CPU (qgemm.h has it), so the outputs are ExecuTorch's
 * bit for bit: the offset its kernels add to the activations (128 where
 * they take them as unsigned bytes) and how many k of a column its
 * packing sums at a time for the grouped weights' ksum. */
void k_qgemm_xnn_arith(int32_t *zoff, int *ksum_chunk);

/* Static int8 (XNNPACK's qs8): C[M,N] int8 = clamp(rint(sum_k (a[m][k] -
 * a_zero_point) * w[n][k] * scale[n] + bias[n]) + c_zero_point, qmin, qmax).
 * The weights are packed as above with `scale` the requantization scales
 * (input scale x filter scale / output scale) and `bias` in output steps
 * (the int32 bias times that scale). The per-tensor zero point goes
 * through the column sums as qd8's per-row one does; the microkernels'
 * float tiles pass through one int8 epilogue (k_qstore_s8) for every ISA.
 * Nothing is allocated. */
/* A second requantization of int8 outputs (a dequantizing then a
 * quantizing convert, fused into the producer's epilogue): y2 =
 * clamp(nearbyint((float)(y1 - zin) * scale * inv) + zout), k_requant_s8's
 * arithmetic, so the result equals that pass over the stored tensor. */
typedef struct k_requant_s8_params {
  int32_t zin, zout;
  float scale, inv;
  /* NULL, or the 256 results by first value + 128 (k_requant_s8_table):
   * applied by byte permutes where the CPU has them (AVX-512 VBMI) */
  const int8_t *table;
} k_requant_s8_params;
/* The table of k_requant_s8_params: every int8 value through k_requant_s8. */
void k_requant_s8_table(const k_requant_s8_params *rq, int8_t table[256]);

typedef struct k_qgemm_s8_desc {
  int64_t M;
  const k_qgemm_packed *w;
  const int8_t *a;
  int64_t sa; /* row stride of A in bytes */
  int32_t a_zero_point;
  int8_t *c;
  int64_t sc;                       /* row stride of C in bytes */
  int32_t c_zero_point, qmin, qmax; /* -128 <= qmin <= qmax <= 127 */
  const k_requant_s8_params *rq;    /* NULL, or requantized again before the store */
  bool parallel;
} k_qgemm_s8_desc;

void k_qgemm_s8(const k_qgemm_s8_desc *g);
/* The int8 epilogue: rows x cols floats (row stride ld) in output steps,
 * already clamped to [qmin - zp, qmax - zp], rounded half to even, plus
 * zp, into int8 rows of stride sc. */
void k_qstore_s8(const float *v, int64_t ld, int64_t rows, int64_t cols, int32_t zp, int8_t *c, int64_t sc);
/* int8 values from one scale and zero point to another, in place: y =
 * clamp(nearbyint((float)(y - zin) * scale * inv) + zout) with those float
 * products in that order (a dequantizing then a quantizing convert). */
void k_requant_s8(int8_t *y, size_t n, int32_t zin, float scale, float inv, int32_t zout);

/* Direct int8 convolution or transposed convolution, NHWC, the filter
 * [groups * gout][kh][kw][gin] (XNNPACK's layout for both), for what the
 * fast paths do not take (2022 XNNPACK has no per-channel int8
 * deconvolution and no dynamically quantized convolution). Each output is
 * an exact int32 sum of (x - zero point) * (w - wz) over the taps that reach
 * it, plus the int32 bias, then either XNNPACK's qs8 requantization (y set:
 * clamp(rint((float)acc * scale[oc]), qmin - zy, qmax - zy) + zy) or its qd8
 * output (yf set: clamp((float)acc * (xq[n].scale * wscale[oc]) + fbias[oc],
 * lo, hi), the image's zero point from xq[n]). Transposed: input (iy, ix)
 * reaches output (iy * sh - pt + ky * dh, ix * sw - pl + kx * dw). Nothing
 * is allocated. */
typedef struct k_qconv_direct_desc {
  int64_t N, H, W, OH, OW;
  int64_t groups, gin, gout;
  int32_t kh, kw, sh, sw, dh, dw, pt, pl; /* strides >= 1 */
  bool transpose;
  const int8_t *x;
  int32_t zx;             /* the input's zero point (xq NULL) */
  const k_qd8_params *xq; /* or one per image: qd8 */
  const int8_t *w;
  int32_t wz;             /* the filter's zero point (0: symmetric) */
  const int32_t *bias;    /* NULL: none */
  const float *scale;     /* qs8: requantization scales */
  int32_t zy, qmin, qmax; /* qs8: output zero point and bounds */
  int8_t *y;              /* qs8 output, or NULL */
  const float *fbias;     /* qd8: fp32 bias (NULL: none) */
  const float *wscale;    /* qd8: filter scales */
  float lo, hi;           /* qd8: output bounds */
  float *yf;              /* qd8 output */
  bool parallel;
} k_qconv_direct_desc;
void k_qconv_direct(const k_qconv_direct_desc *d);
/* XNNPACK's fp32 <-> qint8 converts: y = clamp(nearbyint(x * inv) + zp)
 * with the bounds applied before rounding and NaN sent to zp; and y =
 * (float)(x - zp) * scale. */
void k_quantize_s8(const float *x, int8_t *y, size_t n, float inv, int32_t zp);
void k_dequantize_s8(const int8_t *x, float *y, size_t n, int32_t zp, float scale);
/* y[i] = table[x[i] + 128]: an int8 -> int8 function as 256 entries
 * (AVX-512 VBMI when the CPU has it; in place allowed). */
void k_lut_s8(const int8_t *x, int8_t *y, size_t n, const int8_t *table);

/* Static int8 depthwise convolution on NHWC (XNNPACK's qs8/qc8 dwconv):
 * y[n][oy][ox][oc] = clamp(rint(float(bias[oc] + sum_taps x * w) * scale[oc])
 * + zy, qmin, qmax), input channel oc / mult, taps outside the image read
 * zrow (C bytes of the input zero point). `bias` has the input zero point
 * folded in (bias - zx * sum of the filter's taps), so sums are exact in
 * int32 (they wrap as XNNPACK's). The filter is [kh][kw][C * mult]. At most
 * K_DW_MAX_TAPS taps. Nothing is allocated. */
#define K_DW_MAX_TAPS 256
typedef struct k_dwconv_s8_desc {
  int64_t N, H, W, C, OH, OW;
  int32_t mult, kh, kw, sh, sw, dh, dw, pt, pl;
  const int8_t *x, *w, *zrow;
  /* NULL, or (mult 1) the filter as k_dwconv_s8_pack laid it out for the
   * vector bodies */
  const int16_t *wpack;
  int8_t *y;
  const int32_t *bias;
  const float *scale;
  int32_t zy, qmin, qmax;        /* -128 <= qmin <= qmax <= 127 */
  const k_requant_s8_params *rq; /* NULL, or each output row requantized again while in cache */
  bool parallel;
} k_dwconv_s8_desc;
void k_dwconv_s8(const k_dwconv_s8_desc *d);
/* The filter [taps][C] (depth multiplier 1) for the vector bodies: for
 * each block of 16 channels, each pair of taps, 32 int16 (the pair's
 * weights side by side, in the lane order of the body's unpacks); the
 * last pair of an odd count has zero weights. Elements of the packed
 * array: k_dwconv_s8_packed(taps, C). */
size_t k_dwconv_s8_packed(int64_t taps, int64_t C);
void k_dwconv_s8_pack(const int8_t *w, int64_t taps, int64_t C, int16_t *out);

/* float32 depthwise convolution on NHWC, depth multiplier 1 (dwconv_f32*.c):
 * y[n][oy][ox][c] = clamp(bias[c] + sum_taps x[n][iy][ix][c] * w[ky][kx][c])
 * with iy = oy * sh + ky * dh - pt, ix = ox * sw + kx * dw - pl; taps outside
 * the image add nothing (zero padding). bias may be NULL; the clamp is
 * skipped when lo and hi are infinite. Output rows are split over the pool
 * when `parallel`. AVX-512: 16 channels a vector, the 3x3 filter held in
 * registers across a row, interior pixels without bounds checks. Nothing
 * is allocated. */
typedef struct k_dwconv_f32_desc {
  int64_t N, H, W, C, OH, OW;
  int32_t kh, kw, sh, sw, dh, dw, pt, pl;
  const float *x, *w, *bias;
  float *y;
  float lo, hi;
  bool parallel;
} k_dwconv_f32_desc;
void k_dwconv_f32(const k_dwconv_f32_desc *d);

/* float32 convolution of one group with a short reduction on NHWC
 * (conv_f32*.c; MobileNetV2's stem, 3x3 stride 2 of 3 channels, whose
 * im2col rows of 27 are too short for k_sgemm's packing to pay):
 * y[n][oy][ox][o] = clamp(bias[o] + sum_{ky,kx,c} x[n][iy][ix][c] * w[((ky * kw + kx) * C + c) * OC + o])
 * with iy, ix as k_dwconv_f32's and taps outside the image adding nothing;
 * with `nchw` x is read as x[n][c][iy][ix] instead (the stem reads the
 * delegate's NCHW input in place of a transpose).
 * w is the filter packed by k_conv_f32_pack; bias may be NULL; the clamp
 * is skipped when lo and hi are infinite. Output rows are split over the
 * pool when `parallel`. AVX-512: eight pixels by 32 output channels of
 * accumulators, the input broadcast tap by tap. Nothing is allocated. */
typedef struct k_conv_f32_desc {
  int64_t N, H, W, C, OH, OW, OC;
  int32_t kh, kw, sh, sw, dh, dw, pt, pl;
  const float *x, *w, *bias;
  float *y;
  float lo, hi;
  bool nchw, parallel;
} k_conv_f32_desc;
void k_conv_f32(const k_conv_f32_desc *d);
/* The filter [OC][K] (K = kh * kw * C, XNNPACK's [OC][kh][kw][C]) as
 * k_conv_f32 reads it: [K][OC rounded up to 32], the extra channels zero
 * (whole vectors, no masked loads), k_conv_f32_packed(OC, K) floats. */
size_t k_conv_f32_packed(int64_t OC, int64_t K);
void k_conv_f32_pack(const float *w, int64_t OC, int64_t K, float *out);

/* ---------------------------------------------------------------------- */
/* Strided copies                                                         */
/* ---------------------------------------------------------------------- */

/* Reorder the dims of a walk over nops operands so it goes through the
 * first one in memory order (largest |stride| first, stable): the order of
 * a copy or conversion does not matter, and in memory order the dims of
 * tensors in any dim order merge (channels-last into channels-last is one
 * run). */
void k_memory_order(int32_t dim, const int64_t *sizes, const int64_t *const *strides, int32_t nops,
                    int64_t *osizes, int64_t (*ostrides)[PTE_MAX_DIM]);
/* Copy a block of `sizes` elements of `es` bytes from src (element strides
 * ss, 0 to broadcast) to dst (strides ds). Dims are put in dst's memory
 * order and coalesced; rows contiguous on both sides are memmove'd (a
 * tensor may be copied onto itself), a transpose (one dim contiguous in
 * dst, another in src) goes through cache-sized tiles (AVX2 for 4-byte
 * elements), the rest is a strided loop. `parallel` splits large copies
 * over the pool. */
void k_copy(void *dst, const int64_t *ds, const void *src, const int64_t *ss, int32_t dim,
            const int64_t *sizes, size_t es, bool parallel);
/* The same into a contiguous (row-major) dst. */
void k_copy_to_contiguous(void *dst, const void *src, const int64_t *ss, int32_t dim, const int64_t *sizes,
                          size_t es, bool parallel);

/* IEEE half and bfloat16 <-> float (half.c), the one copy every kernel
 * family uses: exact widening (NaN payloads kept); narrowing rounds to
 * nearest even, overflows to infinity; a NaN stays a quiet NaN (half:
 * the canonical 0x7e00 with its sign; bfloat16: its top bits, quiet bit set). */
float k_half_to_float(uint16_t h);
uint16_t k_float_to_half(float f);
float k_bf16_to_float(uint16_t h);
uint16_t k_float_to_bf16(float f);
void k_f16_to_f32(float *dst, const uint16_t *src, size_t n);
void k_f32_to_f16(uint16_t *dst, const float *src, size_t n);

/* ---------------------------------------------------------------------- */
/* Vectorized transcendental functions (vmath*.c)                         */
/* ---------------------------------------------------------------------- */

/* y[i] = f(x[i]) for float32 arrays (y may be x), on the instruction set
 * of k_isa_get(). Largest errors seen against the correctly rounded values
 * (tests/kernel_layer/test_vmath.c, every 31st float): exp 1 ulp, tanh 1,
 * erf 2, sigmoid 3, silu 4, gelu 4, gelu_tanh 4; NaN, +-inf, +-0, overflow and denormal results as libm.
 * silu is x*sigmoid(x); gelu is 0.5x(1 + erf(x/sqrt 2)); gelu_tanh is
 * 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))). */
void k_vexp(const float *x, float *y, int64_t n);
void k_verf(const float *x, float *y, int64_t n);
void k_vtanh(const float *x, float *y, int64_t n);
void k_vsigmoid(const float *x, float *y, int64_t n);
void k_vsilu(const float *x, float *y, int64_t n);
void k_vgelu(const float *x, float *y, int64_t n);
void k_vgelu_tanh(const float *x, float *y, int64_t n);
/* gelu (erf form) within 2e-7 * (1 + |x|) absolute, not a few ulp: for
 * values quantized next, in 0.8 of k_vgelu's time with AVX-512, 0.7 with
 * AVX2 (see vmath_impl.h). */
void k_vgelu_q(const float *x, float *y, int64_t n);
/* gelu's tanh form as x / (1 + e^-2u), 2u rounded once: within
 * 2.4e-7 * (4 + |2u|) relative, x * 0 below 2u = -88 (the chain of float ops a program spells it
 * with loses far more), at half of k_vgelu_tanh's cost (see vmath_impl.h). */
void k_vgelu_tanh_fast(const float *x, float *y, int64_t n);
/* y[i] = e^(x[i] - shift), returning the float sum of the y[i] (softmax
 * with shift = the row's max). */
float k_vexp_sum(const float *x, float *y, int64_t n, float shift);
/* The largest x[i], NaN skipped, -inf when none (a softmax row's max). */
float k_vmax(const float *x, int64_t n);
/* k_vexp_sum of the row x[i]*scale (each product rounded, as a multiply
 * before it would), without writing it: scale > 0 and finite. */
float k_vexp_sum_scaled(const float *x, float *y, int64_t n, float scale, float shift);
/* y[i] *= s (a softmax row's normalization) */
void k_vmulc(float *y, int64_t n, float s);

/* The same functions of one instruction set (the tests run each). */
typedef struct k_vmath_ops {
  void (*exp)(const float *x, float *y, int64_t n);
  void (*erf)(const float *x, float *y, int64_t n);
  void (*tanh)(const float *x, float *y, int64_t n);
  void (*sigmoid)(const float *x, float *y, int64_t n);
  void (*silu)(const float *x, float *y, int64_t n);
  void (*gelu)(const float *x, float *y, int64_t n);
  void (*gelu_tanh)(const float *x, float *y, int64_t n);
  float (*exp_sum)(const float *x, float *y, int64_t n, float shift);
  float (*max)(const float *x, int64_t n);
  void (*gelu_q)(const float *x, float *y, int64_t n);
  void (*gelu_tanh_fast)(const float *x, float *y, int64_t n);
  float (*exp_sum_scaled)(const float *x, float *y, int64_t n, float scale, float shift);
  void (*mulc)(float *y, int64_t n, float s);
} k_vmath_ops;
/* NULL when this CPU (or build) cannot run `isa`. */
const k_vmath_ops *k_vmath_ops_for(k_isa isa);

#endif
