// NCCL, loaded at run time with dlopen: the addon builds without NCCL's headers and runs on
// machines without NCCL; only a plan with collectives needs it, and then a missing library is
// a precise error naming every place that was tried. The few declarations below are NCCL's
// public C API (nccl.h), written out here by their documented signatures and enum values.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

namespace streamscope {

using NcclComm = struct NcclCommOpaque*;
using NcclResult = int;  // ncclResult_t: 0 is ncclSuccess
constexpr NcclResult kNcclSuccess = 0;

// ncclDataType_t and ncclRedOp_t values, as nccl.h numbers them.
enum class NcclDtype : int {
  Int8 = 0, Uint8 = 1, Int32 = 2, Uint32 = 3, Int64 = 4, Uint64 = 5,
  Float16 = 6, Float32 = 7, Float64 = 8, Bfloat16 = 9,
};
enum class NcclRedOp : int { Sum = 0, Prod = 1, Max = 2, Min = 3, Avg = 4 };

struct NcclApi {
  void* handle = nullptr;
  std::string path;                // the file that loaded
  std::string error;               // why loading failed, when handle is null
  std::vector<std::string> tried;  // every place looked at, in order
  int version = 0;                 // ncclGetVersion: major * 10000 + minor * 100 + patch

  NcclResult (*getVersion)(int*) = nullptr;
  const char* (*getErrorString)(NcclResult) = nullptr;
  NcclResult (*commInitAll)(NcclComm*, int, const int*) = nullptr;
  NcclResult (*commDestroy)(NcclComm) = nullptr;
  NcclResult (*groupStart)() = nullptr;
  NcclResult (*groupEnd)() = nullptr;
  NcclResult (*allReduce)(const void*, void*, size_t, int, int, NcclComm, cudaStream_t) = nullptr;
  NcclResult (*reduceScatter)(const void*, void*, size_t, int, int, NcclComm, cudaStream_t) = nullptr;
  NcclResult (*allGather)(const void*, void*, size_t, int, NcclComm, cudaStream_t) = nullptr;
  NcclResult (*broadcast)(const void*, void*, size_t, int, int, NcclComm, cudaStream_t) = nullptr;
  NcclResult (*send)(const void*, size_t, int, int, NcclComm, cudaStream_t) = nullptr;
  NcclResult (*recv)(void*, size_t, int, int, NcclComm, cudaStream_t) = nullptr;

  bool loaded() const { return handle != nullptr; }
  /** "ncclX failed: <NCCL's message> (code n)". */
  std::string describe(NcclResult r, const char* call) const;
};

/**
 * The process-wide NCCL table, loaded on first use (thread-safe). Tried in order:
 * STREAMSCOPE_NCCL_PATH; libnccl.so.2 on the loader's path; the CUDA toolkit's lib64 (CUDA_HOME,
 * CUDA_PATH, /usr/local/cuda); PyTorch's bundled copy (site-packages/nvidia/nccl/lib) under
 * VIRTUAL_ENV, CONDA_PREFIX and the Python environments of the PATH's bin folders.
 */
const NcclApi& ncclApi();

}  // namespace streamscope
