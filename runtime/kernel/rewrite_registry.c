/* The process-wide registry of load-time rewrite rules: a fixed table in
 * registration order (the order rules are tried in). */
#include "../core/internal.h"

#include <string.h>

static const pte_rewrite_rule *g_rules[PTE_MAX_REWRITE_RULES];
static int32_t g_num_rules;

pte_status pte_register_rewrite(const pte_rewrite_rule *r) {
  /* Checked first: nothing else of a struct of another ABI can be trusted. */
  if (r && pte_abi_check(r->abi, "rewrite rule")) return PTE_ERR_NOT_SUPPORTED;
  if (!r || !r->first || !r->apply)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "a rewrite rule needs an operator name and apply");
  pte_status st = PTE_OK;
  pte_registry_lock();
  for (int32_t i = 0; i < g_num_rules; i++)
    if (g_rules[i] == r) goto done;
  if (g_num_rules >= PTE_MAX_REWRITE_RULES)
    st = pte_error(PTE_ERR_OUT_OF_MEMORY, "rewrite rule registry is full (%d rules)", PTE_MAX_REWRITE_RULES);
  else g_rules[g_num_rules++] = r;
done:
  pte_registry_unlock();
  return st;
}

int32_t pte_rewrite_rule_count(void) {
  pte_registry_lock();
  int32_t n = g_num_rules;
  pte_registry_unlock();
  return n;
}

int32_t pte_rewrite_rules(const pte_rewrite_rule **out, int32_t max) {
  int32_t n = 0;
  pte_registry_lock();
  for (int32_t i = 0; i < g_num_rules && n < max; i++) out[n++] = g_rules[i];
  pte_registry_unlock();
  /* rules of a disabled library are not offered (checked unlocked: it locks) */
  int32_t k = 0;
  for (int32_t i = 0; i < n; i++)
    if (!out[i]->library || pte_kernel_library_enabled(out[i]->library)) out[k++] = out[i];
  return k;
}
