/* fp32 3x3 stride-1 convolutions (XNNConv2d, one group, no dilation) by
 * the kernel layer's Winograd transform (k_wino_*, F(4x4) or F(2x2) by map
 * size): the filter transformed and packed once at init, NHWC as XNNPACK
 * has it. ResNet's 3x3 layers take 2-4x fewer multiplies than the im2col
 * product of xnn_conv.c, which runs every other shape (and these with
 * PTERUN_CONV_WINOGRAD=0). */
#include <math.h>
#include <string.h>

#include "klayer.h"
#include "xnn_compute.h"

/* What init prepared. */
typedef struct xg_wino {
  k_wino_plan p;
  const float *u; /* the filter, transformed and packed */
} xg_wino;

pte_status xg_wino_prepare(xg_graph *g, uint32_t ni, xg_mem *mem, const void **plan) {
  *plan = NULL;
  const xg_node *n = &g->nodes[ni];
  const xg_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]], *o = &g->values[n->out[0]];
  const xg_conv_params *c = &n->p.conv;
  if (c->kernel_h != 3 || c->kernel_w != 3 || c->sub_h != 1 || c->sub_w != 1 || c->dil_h != 1 ||
      c->dil_w != 1 || c->groups != 1)
    return PTE_OK;
  /* the filter must be there to transform (an fp16 or misaligned constant
   * goes the im2col way, which reads a converted copy) */
  if (w->datatype != XG_DT_FP32 || !w->has_data || (uintptr_t)w->data % sizeof(float) != 0) return PTE_OK;
  if (x->ndims != 4 || o->ndims != 4 || w->numel != (size_t)c->group_out * 9 * c->group_in) return PTE_OK;
  const int64_t H = (int64_t)x->dims[1], W = (int64_t)x->dims[2], C = (int64_t)x->dims[3];
  const int64_t OH = (int64_t)o->dims[1], OW = (int64_t)o->dims[2], OC = (int64_t)o->dims[3];
  if (C != c->group_in || OC != c->group_out || o->dims[0] != x->dims[0] ||
      OH != H + (int64_t)c->pad_top + c->pad_bottom - 2 || OW != W + (int64_t)c->pad_left + c->pad_right - 2)
    return PTE_OK;
  if (c->pad_top > 2 || c->pad_left > 2 || c->pad_bottom > 2 || c->pad_right > 2) return PTE_OK;
  const int32_t m = k_wino_choose(C, OC, OH, OW);
  k_wino_plan p;
  if (!m || !k_wino_plan_init(&p, C, OC, H, W, OH, OW, (int32_t)c->pad_top, (int32_t)c->pad_left, m))
    return PTE_OK;
  xg_wino *q = xg_mem_alloc(mem, sizeof *q);
  float *u = xg_mem_array(mem, p.u_floats, sizeof(float));
  if (!q || !u) return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "out of memory for its Winograd filter");
  q->p = p, q->u = u;
  /* filter [OC][kh][kw][C] */
  k_wino_pack(&q->p, w->data, 9 * C, 1, 3 * C, C, u);
  /* the run reads u alone: the filter's file pages are given back (with u
   * beside them, ResNet-18's peak grew 13 MB) */
  if (mem->ctx) pte_backend_release(mem->ctx, w->data, w->nbytes);
  const size_t need = k_wino_scratch(&q->p);
  const pte_status st = xg_fc_scratch_reserve(g, ni, mem, need);
  if (st) return st;
  *plan = q;
  return PTE_OK;
}

void xg_wino_run(const xg_graph *g, const xg_node *n, const void *plan, void *const *ptr) {
  const xg_wino *q = plan;
  const k_wino_plan *p = &q->p;
  const int64_t N = (int64_t)g->values[n->in[0]].dims[0];
  k_wino_desc d = {.p = p,
                   .N = N,
                   .x = ptr[0],
                   .sxn = p->H * p->W * p->C,
                   .sxc = 1,
                   .sxh = p->W * p->C,
                   .sxw = p->C,
                   .y = ptr[n->nin],
                   .syn = p->OH * p->OW * p->OC,
                   .syc = 1,
                   .syh = p->OW * p->OC,
                   .syw = p->OC,
                   .u = q->u,
                   .bias = n->in[2] == XG_NONE ? NULL : ptr[2],
                   .lo = n->out_min,
                   .hi = n->out_max,
                   .scratch = g->fc_scratch,
                   .scratch_bytes = g->fc_scratch_bytes,
                   .parallel = true};
  d.clamp = k_clamps(d.lo, d.hi);
  /* init sized the scratch for this node: the run cannot be refused */
  (void)k_wino_conv(&d);
}
