/* The argument checks of every kernel family, the runtime's prim ops
 * included (see klayer.h). An object of its own: a library pulls from the
 * archive only the objects it calls, and the runtime calls only these. */
#include "klayer.h"

pte_status k_nargs(pte_kernel_ctx *ctx, int32_t nargs, int32_t expected) {
  if (nargs != expected) return K_FAIL("expected %d arguments, got %d", (int)expected, (int)nargs);
  return PTE_OK;
}

pte_status k_wrong_tag(pte_kernel_ctx *ctx, int32_t i, const pte_value *v, const char *want) {
  return K_FAIL("argument %d is a %s, expected %s", (int)i, pte_tag_name(v->tag), want);
}

pte_status k_tensor(pte_kernel_ctx *ctx, pte_value **args, int32_t i, pte_tensor **out) {
  if (args[i]->tag != PTE_TAG_TENSOR) return k_wrong_tag(ctx, i, args[i], "a Tensor");
  *out = args[i]->u.tensor;
  return PTE_OK;
}

pte_status k_opt_tensor(pte_kernel_ctx *ctx, pte_value **args, int32_t i, pte_tensor **out) {
  if (args[i]->tag == PTE_TAG_NONE) {
    *out = NULL;
    return PTE_OK;
  }
  return k_tensor(ctx, args, i, out);
}
