/* Debian's XNNPACK (2022 snapshot, libXNNPACK.so.0) behind a table of
 * function pointers.
 *
 * By default the library is opened with dlopen(RTLD_NOW | RTLD_LOCAL |
 * RTLD_DEEPBIND) and every function is looked up in that handle, so
 *  - pterun exports and imports no xnn_* symbol (nm shows none), and
 *  - neither our calls nor XNNPACK's own calls into pthreadpool/cpuinfo can
 *    be captured by another copy loaded with RTLD_GLOBAL (torch's
 *    libtorch_cpu.so exports pthreadpool_*; with TORCH_USE_RTLD_GLOBAL=1 it
 *    would otherwise win symbol lookup).
 * Sanitizer builds cannot use RTLD_DEEPBIND (the sanitizer runtime refuses
 * it), so PTERUN_XNNPACK_LINKED builds link the library and fill the table
 * with the linked addresses instead. */
#ifndef PTERUN_XNN_API_H
#define PTERUN_XNN_API_H

#include <stdatomic.h>
#include <xnnpack.h>

#include <pterun/runtime.h>

#define XNN_API_FUNCTIONS(X)                       \
  X(xnn_initialize)                                \
  X(xnn_create_subgraph)                           \
  X(xnn_delete_subgraph)                           \
  X(xnn_define_tensor_value)                       \
  X(xnn_define_quantized_tensor_value)             \
  X(xnn_define_channelwise_quantized_tensor_value) \
  X(xnn_define_convert)                            \
  X(xnn_create_runtime_v2)                         \
  X(xnn_setup_runtime)                             \
  X(xnn_invoke_runtime)                            \
  X(xnn_delete_runtime)                            \
  X(xnn_define_add2)                               \
  X(xnn_define_subtract)                           \
  X(xnn_define_multiply2)                          \
  X(xnn_define_divide)                             \
  X(xnn_define_minimum2)                           \
  X(xnn_define_maximum2)                           \
  X(xnn_define_fully_connected)                    \
  X(xnn_define_softmax)                            \
  X(xnn_define_sigmoid)                            \
  X(xnn_define_clamp)                              \
  X(xnn_define_convolution_2d)                     \
  X(xnn_define_depthwise_convolution_2d)           \
  X(xnn_define_deconvolution_2d)                   \
  X(xnn_define_static_resize_bilinear_2d)          \
  X(xnn_define_static_constant_pad)                \
  X(xnn_define_average_pooling_2d)                 \
  X(xnn_define_max_pooling_2d)                     \
  X(xnn_define_global_average_pooling_2d)          \
  X(xnn_define_static_reshape)                     \
  X(xnn_define_floor)                              \
  X(xnn_define_ceiling)                            \
  X(xnn_define_square_root)                        \
  X(xnn_define_square)                             \
  X(xnn_define_hardswish)                          \
  X(xnn_define_leaky_relu)                         \
  X(xnn_define_negate)                             \
  X(xnn_define_elu)                                \
  X(xnn_define_abs)                                \
  X(xnn_define_prelu)

typedef struct xnn_api {
#define XNN_API_FIELD(name) __typeof__(&name) name;
  XNN_API_FUNCTIONS(XNN_API_FIELD)
#undef XNN_API_FIELD
} xnn_api;

/* Load and initialise XNNPACK once per process. Returns NULL (with the reason
 * in *why) when it is not available: library missing, a function missing, or
 * xnn_initialize refused the CPU. */
const xnn_api *xnn_api_get(const char **why);

/* How XNNPACK was resolved, for diagnostics. */
const char *xnn_api_provider(void);

/* Allocations XNNPACK made through pterun's allocator, and the bytes live. */
extern atomic_uint_fast64_t xnn_api_allocations;
extern atomic_int_fast64_t xnn_api_live_bytes;
/* Tests watch XNNPACK's blocks come and go (test_xnnpack_standin); NULL
 * otherwise. Set it only while no other thread builds a delegate. */
extern void (*xnn_api_watch)(const void *block, size_t size, bool live);

/* "success", "invalid parameter", ... */
const char *xnn_api_status(int status);

#endif
