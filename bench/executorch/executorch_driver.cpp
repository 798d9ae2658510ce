// executorch_bench: ExecuTorch's C++ runtime behind the benchmark driver
// protocol (../driver/bench_driver.h), so both runtimes are timed the same
// way: same .pte file, same inputs, execute only, no Python in the loop.
//
// Built against the executorch wheel's shipped libraries and headers
// (libexecutorch, its optimized kernels, its XNNPACK delegate and thread
// pool) through the wheel's CMake package. It uses ExecuTorch's public API
// the way an application does: an mmap data loader, Program::load with
// InternalConsistency verification, planned buffers sized from MethodMeta
// and malloc-backed method and temp allocators.
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/runtime.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_driver.h"

// The wheel ships libexecutorch_threadpool but not its header; these two
// declarations match the exported symbols (get_threadpool() and the
// ThreadPool members) so the driver can size the pool like the Python
// bindings' _unsafe_reset_threadpool does.
namespace executorch::extension::threadpool {
class ThreadPool {
 public:
  size_t get_thread_count() const;
  bool _unsafe_reset_threadpool(uint32_t num_threads);
};
ThreadPool* get_threadpool();
}  // namespace executorch::extension::threadpool

namespace {

using executorch::aten::DimOrderType;
using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::StridesType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::extension::FlatTensorDataMap;
using executorch::extension::MallocMemoryAllocator;
using executorch::extension::MmapDataLoader;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Span;

std::string g_error;

double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

int fail(const std::string& what, Error e) {
  char code[32];
  std::snprintf(code, sizeof code, " (error 0x%x)", static_cast<unsigned>(e));
  g_error = what + code;
  return 1;
}

// One input tensor: the TensorImpl points at the driver-owned bytes.
struct Input {
  std::vector<SizesType> sizes;
  std::vector<DimOrderType> dim_order;
  std::vector<StridesType> strides;
  std::unique_ptr<TensorImpl> impl;
};

}  // namespace

struct bench_model {
  std::optional<MmapDataLoader> loader;
  std::optional<MmapDataLoader> data_loader;
  std::optional<FlatTensorDataMap> data_map;
  std::optional<Program> program;
  std::vector<std::vector<uint8_t>> planned;
  std::vector<Span<uint8_t>> planned_spans;
  std::unique_ptr<HierarchicalAllocator> planned_allocator;
  MallocMemoryAllocator method_allocator;
  MallocMemoryAllocator temp_allocator;
  std::unique_ptr<MemoryManager> memory_manager;
  std::optional<Method> method;
  std::vector<Input> inputs;
};

namespace {

int et_init(int threads) {
  executorch::runtime::runtime_init();
  if (threads > 0 && !executorch::extension::threadpool::get_threadpool()->_unsafe_reset_threadpool(
                         static_cast<uint32_t>(threads))) {
    g_error = "cannot resize ExecuTorch's thread pool";
    return 1;
  }
  return 0;
}

void et_info(char* buf, size_t size) {
  size_t n = static_cast<size_t>(std::snprintf(
      buf, size, "{\"runtime\": \"executorch\", \"kernels\": %zu, \"threadpool_threads\": %zu, \"backends\": [",
      executorch::runtime::get_registered_kernels().size(),
      executorch::extension::threadpool::get_threadpool()->get_thread_count()));
  for (size_t i = 0; i < executorch::runtime::get_num_registered_backends() && n < size; i++) {
    auto name = executorch::runtime::get_backend_name(i);
    n += static_cast<size_t>(
        std::snprintf(buf + n, size - n, "%s\"%s\"", i ? ", " : "", name.ok() ? name.get() : "?"));
  }
  if (n < size) std::snprintf(buf + n, size - n, "]}");
}

void et_free(bench_model* m) { delete m; }

int et_load(const char* pte, const char* ptd, const char* method_name, const bench_tensor* inputs,
            int num_inputs, bench_model** out, double* program_ms, double* method_ms) {
  auto m = std::make_unique<bench_model>();
  double t0 = now_ms();
  auto loader = MmapDataLoader::from(pte, MmapDataLoader::MlockConfig::NoMlock);
  if (!loader.ok()) return fail(std::string("cannot map ") + pte, loader.error());
  m->loader.emplace(std::move(loader.get()));
  if (ptd) {
    auto dl = MmapDataLoader::from(ptd, MmapDataLoader::MlockConfig::NoMlock);
    if (!dl.ok()) return fail(std::string("cannot map ") + ptd, dl.error());
    m->data_loader.emplace(std::move(dl.get()));
    auto map = FlatTensorDataMap::load(&*m->data_loader);
    if (!map.ok()) return fail(std::string("cannot load ") + ptd, map.error());
    m->data_map.emplace(std::move(map.get()));
  }
  auto program = Program::load(&*m->loader, Program::Verification::InternalConsistency);
  if (!program.ok()) return fail("Program::load failed", program.error());
  m->program.emplace(std::move(program.get()));
  double t1 = now_ms();

  auto meta = m->program->method_meta(method_name);
  if (!meta.ok()) return fail(std::string("no method ") + method_name, meta.error());
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); i++) {
    auto size = meta->memory_planned_buffer_size(i);
    if (!size.ok()) return fail("bad planned buffer size", size.error());
    m->planned.emplace_back(static_cast<size_t>(size.get()));
  }
  for (auto& b : m->planned) m->planned_spans.emplace_back(b.data(), b.size());
  m->planned_allocator = std::make_unique<HierarchicalAllocator>(
      Span<Span<uint8_t>>(m->planned_spans.data(), m->planned_spans.size()));
  m->memory_manager =
      std::make_unique<MemoryManager>(&m->method_allocator, m->planned_allocator.get(), &m->temp_allocator);
  auto method = m->program->load_method(method_name, m->memory_manager.get(), nullptr,
                                        m->data_map ? &*m->data_map : nullptr);
  if (!method.ok()) return fail(std::string("load_method ") + method_name + " failed", method.error());
  m->method.emplace(std::move(method.get()));
  double t2 = now_ms();
  *program_ms = t1 - t0;
  *method_ms = t2 - t1;

  m->inputs.resize(static_cast<size_t>(num_inputs));
  for (int i = 0; i < num_inputs; i++) {
    const bench_tensor& b = inputs[i];
    Input& in = m->inputs[static_cast<size_t>(i)];
    in.sizes.assign(b.sizes, b.sizes + b.dim);
    in.dim_order.resize(static_cast<size_t>(b.dim));
    in.strides.resize(static_cast<size_t>(b.dim));
    StridesType stride = 1;
    for (int d = b.dim - 1; d >= 0; d--) {
      in.dim_order[static_cast<size_t>(d)] = static_cast<DimOrderType>(d);
      in.strides[static_cast<size_t>(d)] = stride;
      stride *= static_cast<StridesType>(b.sizes[d]);
    }
    in.impl = std::make_unique<TensorImpl>(static_cast<ScalarType>(b.dtype), b.dim, in.sizes.data(), b.data,
                                           in.dim_order.data(), in.strides.data());
    Error e = m->method->set_input(EValue(Tensor(in.impl.get())), static_cast<size_t>(i));
    if (e != Error::Ok) return fail("set_input " + std::to_string(i) + " failed", e);
  }
  *out = m.release();
  return 0;
}

// One inference: set the inputs (copied into planned memory), execute.
int et_execute(bench_model* m) {
  for (size_t i = 0; i < m->inputs.size(); i++) {
    Error e = m->method->set_input(EValue(Tensor(m->inputs[i].impl.get())), i);
    if (e != Error::Ok) return fail("set_input failed", e);
  }
  Error e = m->method->execute();
  return e == Error::Ok ? 0 : fail("execute failed", e);
}

int et_num_outputs(bench_model* m) { return static_cast<int>(m->method->outputs_size()); }

int et_output(bench_model* m, int i, bench_tensor* out) {
  const EValue& v = m->method->get_output(static_cast<size_t>(i));
  if (!v.isTensor()) {
    g_error = "output " + std::to_string(i) + " is not a tensor";
    return 1;
  }
  const Tensor& t = v.toTensor();
  std::memset(out, 0, sizeof *out);
  out->dtype = static_cast<int32_t>(t.scalar_type());
  out->dim = static_cast<int32_t>(t.dim());
  for (ssize_t d = 0; d < t.dim(); d++) {
    out->sizes[d] = t.size(d);
    if (t.dim_order()[d] != d) {
      g_error = "output " + std::to_string(i) + " is not contiguous";
      return 1;
    }
  }
  out->data = const_cast<void*>(t.const_data_ptr());
  out->nbytes = t.nbytes();
  return 0;
}

const char* et_error() { return g_error.c_str(); }

const bench_runtime k_executorch = {
    "executorch", et_init, et_info, et_load, et_execute, et_num_outputs, et_output, et_free, et_error,
};

}  // namespace

int main(int argc, char** argv) { return bench_driver_main(argc, argv, &k_executorch); }
