// The injection library's entry points: InitializeInjection, which the CUDA driver calls from
// cuInit in any process started with CUDA_INJECTION64_PATH naming this library, and
// InitializeInjectionNvtx2, which NVTX calls when NVTX_INJECTION64_PATH names it (handed on to
// CUPTI's own NVTX support, so ranges arrive as CUPTI marker records).
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "cupti-api.h"
#include "inject-collector.h"

#define SS_EXPORT extern "C" __attribute__((visibility("default")))

/** Called once by the driver inside cuInit. Never fails the program: always reports success. */
SS_EXPORT int InitializeInjection(void) {
  try {
    streamscope::collectorStart(true);
  } catch (...) {
    // Nothing may escape into the driver; the collector already said why it is off.
  }
  return 1;
}

using NvtxGetExportTable = const void* (*)(uint32_t);

/** NVTX's injection hook: CUPTI implements it; we only make sure it is CUPTI that answers. */
SS_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTable getExportTable) {
  const char* nvtx = std::getenv("STREAMSCOPE_PROFILE_NVTX");
  if (nvtx != nullptr && std::strcmp(nvtx, "0") == 0) return 0;
  const streamscope::CuptiApi& api = streamscope::cuptiApi();
  if (!api.loaded()) return 0;  // NVTX calls then stay no-ops
  using Init = int (*)(NvtxGetExportTable);
  auto init = reinterpret_cast<Init>(dlsym(api.handle, "InitializeInjectionNvtx2"));
  return init != nullptr ? init(getExportTable) : 0;
}
