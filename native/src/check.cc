#include "check.h"

#include <cstring>

namespace streamscope {

std::string describeCudaError(cudaError_t status, const char* call, const char* file, int line) {
  const char* base = std::strrchr(file, '/');
  std::string where = base != nullptr ? base + 1 : file;
  return where + ":" + std::to_string(line) + ": " + call + " failed: " + cudaGetErrorName(status) +
         " (" + std::to_string(static_cast<int>(status)) + "): " + cudaGetErrorString(status);
}

}  // namespace streamscope
