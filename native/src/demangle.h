// Kernel names as people read them: CUPTI reports the compiler's symbol, mangled for C++
// ("_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE").
#pragma once

#include <string>

namespace streamscope {

/** The demangled name of a C++ symbol, or `mangled` itself when it is not one. */
std::string demangleName(const char* mangled);

}  // namespace streamscope
