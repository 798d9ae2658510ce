/* libpterun_bundled_program: ExecuTorch's BundledProgram (.bpte) files, a
 * program together with test cases (inputs and the outputs eager PyTorch
 * gave) per method. Load one, hand its program to pte_program_load_buffer,
 * and check a method case by case:
 *
 *   pte_bundled_program *bp;
 *   pte_bundled_program_load_file("model.bpte", &bp);
 *   size_t n; const void *pte = pte_bundled_program_program(bp, &n);
 *   pte_program_load_buffer(pte, n, NULL, &program);   // bp must outlive it
 *   pte_method_load(program, "forward", NULL, &method);
 *   pte_bundled_program_set_inputs(bp, method, 0);      // case 0's inputs
 *   pte_method_execute(method);
 *   pte_bundled_program_check_outputs(bp, method, 0, 1e-5, 1e-8, &mismatch);
 *
 * The file is verified completely when loaded (every offset, vector, union
 * and tensor size), so a hostile file fails there with PTE_ERR_INVALID_PROGRAM
 * and a message naming the field. */
#ifndef PTERUN_BUNDLED_PROGRAM_H
#define PTERUN_BUNDLED_PROGRAM_H

#include <pterun/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pte_bundled_program pte_bundled_program;

/* Load from memory (the bytes are copied) or from a file. */
PTE_API pte_status pte_bundled_program_load_buffer(const void *data, size_t size, pte_bundled_program **out);
PTE_API pte_status pte_bundled_program_load_file(const char *path, pte_bundled_program **out);
PTE_API void pte_bundled_program_free(pte_bundled_program *bp);

/* The embedded .pte (32-byte aligned; valid while bp lives). */
PTE_API const void *pte_bundled_program_program(const pte_bundled_program *bp, size_t *size);

/* The test suites: one per method. */
PTE_API int32_t pte_bundled_program_suite_count(const pte_bundled_program *bp);
PTE_API const char *pte_bundled_program_suite_method(const pte_bundled_program *bp, int32_t suite);
/* Test cases of `method`'s suite (0 if it has none). */
PTE_API int32_t pte_bundled_program_case_count(const pte_bundled_program *bp, const char *method);

/* Set every input of `method` from test case `index` of its suite. Tensor
 * inputs read the file's bytes (bp must outlive the method's next execute). */
PTE_API pte_status pte_bundled_program_set_inputs(pte_bundled_program *bp, pte_method *method, int32_t index);

/* The worst element of a comparison: output `output`, flat element `element`. */
typedef struct pte_bundled_mismatch {
  int32_t output;  /* -1 when no output had an element */
  int64_t element; /* row-major index */
  double actual;
  double expected;
  double excess; /* |actual - expected| - (atol + rtol * |expected|): > 0 fails */
} pte_bundled_mismatch;

/* Compare the method's outputs (after execute) with case `index`'s expected
 * outputs: |actual - expected| <= atol + rtol * |expected| for every element
 * (NaN matches NaN), same dtype and sizes, scalars equal. PTE_OK when all
 * hold; PTE_ERR_INVALID_STATE with a message naming the case, output and
 * element otherwise. `worst` (may be NULL) receives the largest excess. */
PTE_API pte_status pte_bundled_program_check_outputs(const pte_bundled_program *bp, const pte_method *method,
                                                     int32_t index, double rtol, double atol,
                                                     pte_bundled_mismatch *worst);

#ifdef __cplusplus
}
#endif

#endif /* PTERUN_BUNDLED_PROGRAM_H */
