// Error handling shared by the addon's translation units: every CUDA failure carries
// file:line, the call and cudaGetErrorName, and becomes a NativeError that the binding layer
// turns into a JS exception (never an exception across the addon boundary unconverted).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace streamscope {

class NativeError : public std::runtime_error {
 public:
  explicit NativeError(const std::string& message) : std::runtime_error(message) {}
};

std::string describeCudaError(cudaError_t status, const char* call, const char* file, int line);

}  // namespace streamscope

// Throws NativeError("file:line: call failed: cudaErrorX (n): description").
#define SS_CUDA_CHECK(call)                                                          \
  do {                                                                               \
    cudaError_t ss_status_ = (call);                                                 \
    if (ss_status_ != cudaSuccess) {                                                 \
      throw ::streamscope::NativeError(                                              \
          ::streamscope::describeCudaError(ss_status_, #call, __FILE__, __LINE__));  \
    }                                                                                \
  } while (0)

#define SS_FAIL(message) \
  throw ::streamscope::NativeError(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " + (message))
