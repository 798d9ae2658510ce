/*
 * pterun training: on-device training of programs from ExecuTorch's joint
 * forward-backward export (libpterun_training).
 *
 * Such a program's training method (usually "forward") returns the loss
 * first, then the model's other outputs, then one gradient per trainable
 * parameter, then the parameters themselves. Three metadata methods say
 * where: __et_training_gradients_index_<method> and
 * __et_training_parameters_index_<method> return the output index of the
 * first gradient and of the first parameter, __et_training_fqn_<method> the
 * parameters' names (fully qualified, as in the module's state dict).
 *
 * A pte_training_module copies each parameter out of the program (whose
 * constants are read-only and may be shared between equal tensors) into
 * memory of its own and points the method at it, so parameters are
 * writable and every forward_backward uses their current values.
 *
 *   pte_training_module *m;
 *   pte_training_load_file("model.pte", NULL, &m);
 *   pte_training_sgd *opt;
 *   pte_training_sgd_options o = PTE_TRAINING_SGD_OPTIONS_INIT;
 *   o.lr = 0.1;
 *   pte_training_sgd_create(pte_training_parameters(m), pte_training_parameter_count(m), &o, &opt);
 *   for (...) {
 *     pte_training_set_input(m, 0, &x);
 *     pte_training_set_input(m, 1, &y);
 *     pte_training_forward_backward(m);
 *     pte_training_sgd_step(opt, pte_training_gradients(m), pte_training_parameter_count(m));
 *   }
 *   pte_training_save_ptd(m, "trained.ptd");  (loads with an inference program
 *                                              exported with external weights)
 */
#ifndef PTERUN_TRAINING_H
#define PTERUN_TRAINING_H

#include <pterun/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pte_training_module pte_training_module;

/* Load `path` and its training method `method` (NULL: "forward"), read the
 * metadata methods and copy the parameters into module memory. */
PTE_API pte_status pte_training_load_file(const char *path, const char *method, pte_training_module **out);
PTE_API void pte_training_free(pte_training_module *module);

/* The training method (set inputs, read outputs through runtime.h). */
PTE_API pte_method *pte_training_method(pte_training_module *module);
/* Set input `index` for this and every later forward_backward: the tensor's
 * data must stay valid (and may change between steps: a new batch). */
PTE_API pte_status pte_training_set_input(pte_training_module *module, int32_t index,
                                          const pte_tensor *tensor);
/* Run forward and backward (inputs from pte_training_set_input copied in
 * again first): the loss, the outputs and the gradients. */
PTE_API pte_status pte_training_forward_backward(pte_training_module *module);
/* The loss of the last forward_backward (output 0, a float scalar). */
PTE_API pte_status pte_training_loss(const pte_training_module *module, double *loss);
/* Model outputs before the gradients (the loss is output 0). */
PTE_API int32_t pte_training_output_count(const pte_training_module *module);
PTE_API const pte_value *pte_training_output(const pte_training_module *module, int32_t index);

PTE_API int32_t pte_training_parameter_count(const pte_training_module *module);
/* Name of parameter i ("fc.weight"), NULL when out of range. */
PTE_API const char *pte_training_parameter_name(const pte_training_module *module, int32_t index);
/* Parameter i: a contiguous tensor over module memory; write its data to
 * change the model. NULL when out of range. */
PTE_API pte_tensor *pte_training_parameter(pte_training_module *module, int32_t index);
/* All parameters / gradients, in the program's order (count entries). The
 * gradients hold the last forward_backward's values (planned memory: valid
 * until the next one). */
PTE_API pte_tensor *const *pte_training_parameters(pte_training_module *module);
PTE_API const pte_tensor *const *pte_training_gradients(const pte_training_module *module);
/* Index of parameter `name`, or -1. */
PTE_API int32_t pte_training_parameter_index(const pte_training_module *module, const char *name);

/* Write the parameters to a .ptd (FlatTensor) file, keyed by name with
 * their layouts: what an inference program exported with external
 * constants (ExecutorchBackendConfig(external_constants=...)) loads. */
PTE_API pte_status pte_training_save_ptd(const pte_training_module *module, const char *path);

/* ---- SGD, step for step as torch.optim.SGD (single-tensor path) ---- */

typedef struct pte_training_sgd_options {
  uint32_t abi; /* PTE_ABI_VERSION (PTE_TRAINING_SGD_OPTIONS_INIT) */
  double lr;
  double momentum;
  double dampening;
  double weight_decay;
  bool nesterov; /* needs momentum > 0 and dampening == 0, like torch */
} pte_training_sgd_options;

#define PTE_TRAINING_SGD_OPTIONS_INIT \
  { PTE_ABI_VERSION, 0.001, 0.0, 0.0, 0.0, false }

typedef struct pte_training_sgd pte_training_sgd;

/* An optimizer over `count` float tensors it updates in place (they must
 * outlive it). Momentum buffers are made at the first step, as torch does. */
PTE_API pte_status pte_training_sgd_create(pte_tensor *const *params, int32_t count,
                                           const pte_training_sgd_options *options, pte_training_sgd **out);
PTE_API void pte_training_sgd_free(pte_training_sgd *sgd);
/* One step: grads[i] (same dtype and element count as params[i]). */
PTE_API pte_status pte_training_sgd_step(pte_training_sgd *sgd, const pte_tensor *const *grads,
                                         int32_t count);
/* Change the learning rate between steps (schedules). */
PTE_API pte_status pte_training_sgd_set_lr(pte_training_sgd *sgd, double lr);

#ifdef __cplusplus
}
#endif

#endif
