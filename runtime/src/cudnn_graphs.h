//===- cudnn_graphs.h - cuDNN graphs, built once and run --------*- C++ -*-===//
//
// What the CUDA backend's cuDNN calls (attention, convolutions, batch
// norm) share: a graph's plan built on its first use and kept in a cache,
// the refusal kept instead where cuDNN has none, and a run that reports
// whether it ran, so that the backend falls back to its own kernels. The
// frontend throws on some failures (a library it cannot load); nothing it
// throws leaves here.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_CUDNN_GRAPHS_H
#define AMP_RUNTIME_SRC_CUDNN_GRAPHS_H

#include "backend.h"
#include "cudnn_context.h"
#include "status.h"

#include <cudnn_frontend.h>

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace amprt {

/// A graph cuDNN has built a plan for, or why it has none.
struct CudnnPlan {
  std::shared_ptr<cudnn_frontend::graph::Graph> graph;
  int64_t workspaceBytes = 0;
  std::string declined;
  /// Whether a decline is the caller's rule (an f32 attention, which the
  /// step runs on the runtime's kernels by design) rather than a fallback.
  bool byRule = false;
  /// Set once the fallback has been reported.
  mutable std::once_flag reported;
};

/// Builds the plan of `graph` (made by `make`, which may throw) on
/// `handle`, with heuristics mode A, leaving out the engines with any of
/// the `excluded` numerical notes.
template <typename Make>
std::shared_ptr<const CudnnPlan> buildCudnnPlan(
    cudnnHandle_t handle, Make make,
    const std::vector<cudnn_frontend::NumericalNote_t> &excluded = {}) {
  namespace fe = cudnn_frontend;
  auto plan = std::make_shared<CudnnPlan>();
  try {
    plan->graph = make();
    fe::error_t status = plan->graph->validate();
    if (status.is_good())
      status = plan->graph->build_operation_graph(handle);
    if (status.is_good())
      status = plan->graph->create_execution_plans({fe::HeurMode_t::A});
    if (status.is_good() && !excluded.empty())
      plan->graph->deselect_numeric_notes(excluded);
    if (status.is_good())
      status = plan->graph->check_support(handle);
    if (status.is_good())
      status = plan->graph->build_plans(handle);
    if (status.is_good())
      status = plan->graph->get_workspace_size(plan->workspaceBytes);
    if (status.is_bad())
      plan->declined = status.get_message();
  } catch (const std::exception &error) {
    plan->declined = error.what();
  }
  if (!plan->declined.empty())
    plan->graph.reset();
  return plan;
}

/// Why the frontend refuses the graph `make` builds (for the GPU it was
/// made for), without a GPU: empty where it validates.
template <typename Make> std::string validateCudnnGraph(Make make) {
  try {
    cudnn_frontend::error_t status = make()->validate();
    return status.is_bad() ? status.get_message() : std::string();
  } catch (const std::exception &error) {
    return error.what();
  }
}

/// Runs `plan` over `pack` on `stream`, or sets *ran to false where it has
/// no graph or needs more than `workspaceBytes`. `what` names the call in
/// errors.
inline amp_status_t runCudnnPlan(cudnnHandle_t handle, void *stream,
                                 const CudnnPlan &plan,
                                 std::unordered_map<int64_t, void *> pack,
                                 void *workspace, size_t workspaceBytes,
                                 const char *what, bool *ran) {
  *ran = false;
  // Anything else than the caller's rule runs the runtime's kernels
  // instead: counted (amp_library_fallbacks) and said once per plan.
  if (!plan.graph) {
    if (!plan.byRule)
      countLibraryFallback(plan.reported, what,
                           "cuDNN declined it: " + plan.declined);
    return nullptr;
  }
  if (static_cast<uint64_t>(plan.workspaceBytes) > workspaceBytes) {
    countLibraryFallback(plan.reported, what,
                         "its plan needs " +
                             std::to_string(plan.workspaceBytes) +
                             " bytes of workspace, the step offers " +
                             std::to_string(workspaceBytes));
    return nullptr;
  }
  cudnnStatus_t set = cudnnSetStream(handle, static_cast<cudaStream_t>(stream));
  if (set != CUDNN_STATUS_SUCCESS)
    return AMP_STATUS(AMP_DEVICE_ERROR, "cudnnSetStream: %s",
                      cudnnGetErrorString(set));
  cudnn_frontend::error_t status;
  try {
    status = plan.graph->execute(handle, pack, workspace);
  } catch (const std::exception &error) {
    return AMP_STATUS(AMP_DEVICE_ERROR, "cuDNN %s: %s", what, error.what());
  }
  if (status.is_bad())
    return AMP_STATUS(AMP_DEVICE_ERROR, "cuDNN %s: %s", what,
                      status.get_message().c_str());
  *ran = true;
  return nullptr;
}

/// Whether every non-null pointer is 16-byte aligned, as the frontend
/// wants every tensor's address.
inline bool cudnnAligned(std::initializer_list<const void *> pointers) {
  for (const void *pointer : pointers)
    if (pointer && reinterpret_cast<uintptr_t>(pointer) % 16 != 0)
      return false;
  return true;
}

/// The plans of one kind of call, by `Key`, each built on its first use
/// and kept (a refusal too): the attention's, the convolutions' and the
/// batch norms' caches. Looked up under the CudnnContext's lock.
template <typename Key> class CudnnPlanCache {
public:
  /// The plan for `key`, made by `build()` (a shared_ptr<const CudnnPlan>,
  /// say buildCudnnPlan's) the first time.
  template <typename Build> const CudnnPlan &get(const Key &key, Build build) {
    auto found = plans.find(key);
    if (found == plans.end())
      found = plans.emplace(key, build()).first;
    return *found->second;
  }

private:
  std::map<Key, std::shared_ptr<const CudnnPlan>> plans;
};

} // namespace amprt

#endif // AMP_RUNTIME_SRC_CUDNN_GRAPHS_H
