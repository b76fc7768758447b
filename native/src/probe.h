#pragma once

#include <napi.h>

namespace streamscope {

/** What this machine offers: CUDA driver and runtime, devices, CUPTI; or exactly why not. */
Napi::Object probe(Napi::Env env);

/** An untraced cudaMemcpyAsync loop, back to back on one stream, in bytes/s (wall clock): the peak
 * that traced copies are held against. */
double copyBandwidth(int device, bool hostToDevice, bool pinned, size_t bytes, int reps);

}  // namespace streamscope
