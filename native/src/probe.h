#pragma once

#include <napi.h>

namespace streamscope {

/** What this machine offers: CUDA driver and runtime, devices, CUPTI; or exactly why not. */
Napi::Object probe(Napi::Env env);

/** A plain cudaMemcpy loop (no tracing) in bytes/s: the peak that traced copies are held against. */
double copyBandwidth(int device, bool hostToDevice, bool pinned, size_t bytes, int reps);

}  // namespace streamscope
