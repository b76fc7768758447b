// CUPTI for a whole profiled process (the injection collector): what nsys's `--trace=cuda,nvtx`
// records, through the same buffer callbacks and flush thread as the executor (cupti-session.cc).
#include <cstring>
#include <mutex>
#include <string>

#include "cupti-api.h"
#include "cupti-session.h"

namespace streamscope {

namespace {

std::mutex profileMutex;
CUpti_SubscriberHandle profileSubscriber = nullptr;
bool profileOn = false;

// Kinds without which the collector is pointless: a failure to enable one disables it.
constexpr CUpti_ActivityKind kRequired[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,  CUPTI_ACTIVITY_KIND_MEMCPY2,
    CUPTI_ACTIVITY_KIND_MEMSET,            CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
};
// Kinds that only add detail: device names, stream types, contexts' default streams, events.
constexpr CUpti_ActivityKind kOptional[] = {
    CUPTI_ACTIVITY_KIND_DEVICE,
    CUPTI_ACTIVITY_KIND_CONTEXT,
    CUPTI_ACTIVITY_KIND_STREAM,
};

// Runtime calls that only ask something (nsys leaves such calls out too): PyTorch makes tens of
// thousands a second, cudaGetDevice before nearly every op, and each record costs the caller.
constexpr const char* kQuietRuntime[] = {
    "cudaGetDevice", "cudaGetLastError", "cudaPeekAtLastError", "cudaGetDeviceCount", "cudaDriverGetVersion",
    "cudaRuntimeGetVersion", "cudaDeviceGetAttribute", "cudaGetDeviceProperties", "cudaPointerGetAttributes",
    "cudaFuncGetAttributes", "cudaStreamIsCapturing", "cudaStreamGetCaptureInfo",
    "cudaThreadExchangeStreamCaptureMode", "cudaGetDriverEntryPoint", "cudaGetDriverEntryPointByVersion",
    "cudaGetErrorString", "cudaGetErrorName", "cudaStreamGetPriority", "cudaStreamGetFlags", "cudaStreamGetId",
    "cudaStreamGetDevice", "cudaDeviceGetStreamPriorityRange", "cudaGetFuncBySymbol", "cudaGetSymbolAddress",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaOccupancyMaxActiveClusters", "cudaGetDeviceFlags",
    "cudaDeviceGetPCIBusId", "cudaFuncSetAttribute", "cudaGetKernel",
};
// Driver calls that do or wait for work; the rest (cuDevicePrimaryCtxGetState, cuKernelGetName,
// cuGetProcAddress...) are bookkeeping, and calls made inside runtime calls are dropped anyway.
constexpr const char* kDriverWork[] = {
    "cuLaunch", "cuMemcpy", "cuMemset", "cuGraphLaunch", "cuStreamSynchronize", "cuCtxSynchronize",
    "cuEventSynchronize", "cuStreamWaitEvent", "cuEventRecord", "cuMemAlloc", "cuMemFree", "cuMemHostAlloc",
    "cuMemPrefetch", "cuStreamCreate", "cuStreamDestroy", "cuModuleLoad", "cuLibraryLoad", "cuStreamBeginCapture",
    "cuStreamEndCapture", "cuGraphInstantiate",
};

// A CUPTI callback name without its suffixes: "cudaGetDevice_v3020" -> "cudaGetDevice".
std::string baseName(const char* raw) {
  std::string name = raw;
  for (const char* suffix : {"_v", "_ptsz", "_ptds"}) {
    size_t at = name.find(suffix, 2);
    if (at != std::string::npos) name.resize(at);
  }
  return name;
}

// Fine-grained API recording; false when this CUPTI cannot (the caller enables whole kinds).
bool chooseApis(const CuptiApi& api, bool driverApi) {
  if (api.activityEnableRuntimeApi == nullptr || api.activityEnableDriverApi == nullptr ||
      api.getCallbackName == nullptr) {
    return false;
  }
  if (api.activityEnable(CUPTI_ACTIVITY_KIND_RUNTIME) != CUPTI_SUCCESS) return false;
  for (uint32_t cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; cbid++) {
    const char* raw = nullptr;
    if (api.getCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &raw) != CUPTI_SUCCESS || raw == nullptr) continue;
    std::string name = baseName(raw);
    for (const char* quiet : kQuietRuntime) {
      if (name == quiet) api.activityEnableRuntimeApi(cbid, 0);
    }
  }
  if (!driverApi) return true;
  for (uint32_t cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++) {
    const char* raw = nullptr;
    if (api.getCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &raw) != CUPTI_SUCCESS || raw == nullptr) continue;
    for (const char* prefix : kDriverWork) {
      if (std::strncmp(raw, prefix, std::strlen(prefix)) == 0) {
        api.activityEnableDriverApi(cbid, 1);
        break;
      }
    }
  }
  return true;
}

void CUPTIAPI noCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

std::string check(CUptiResult r, const char* what) {
  return r == CUPTI_SUCCESS ? "" : std::string(what) + " failed: " + cuptiApi().resultName(r);
}

void disableAll(const CuptiApi& api) {
  for (CUpti_ActivityKind kind : kRequired) api.activityDisable(kind);
  for (CUpti_ActivityKind kind : kOptional) api.activityDisable(kind);
  api.activityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
  api.activityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
  api.activityDisable(CUPTI_ACTIVITY_KIND_MARKER);
  api.activityDisable(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
}

}  // namespace

std::string cuptiStartProfile(const ProfileActivities& what) {
  std::lock_guard<std::mutex> lock(profileMutex);
  if (profileOn) return "";
  const CuptiApi& api = cuptiApi();
  if (!api.loaded()) return api.error;
  // The subscription is how a second profiler shows itself: CUPTI allows one subscriber.
  std::string error = check(api.subscribe(&profileSubscriber, noCallback, nullptr), "cuptiSubscribe");
  if (!error.empty()) {
    profileSubscriber = nullptr;
    return error;
  }
  if (api.setThreadIdType != nullptr) {
    // Kernel thread ids (what /proc and nsys show), not pthread handles.
    api.setThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  }
  if (what.pinnedDeviceBuffers) {
    uint8_t pinned = 1;
    size_t size = sizeof pinned;
    api.activitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &size, &pinned);
  }
  cuptiSetBuffers(what.bufferBytes, what.maxBufferBytes);
  error = cuptiRegisterBuffers();
  for (CUpti_ActivityKind kind : kRequired) {
    if (error.empty()) error = check(api.activityEnable(kind), "cuptiActivityEnable");
  }
  if (error.empty() && (what.everyApiCall || !chooseApis(api, what.driverApi))) {
    error = check(api.activityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "cuptiActivityEnable");
    if (error.empty() && what.driverApi && what.everyApiCall) api.activityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
  }
  if (error.empty() && !what.pendingQueries && api.activityEnableAllSyncRecords != nullptr) {
    api.activityEnableAllSyncRecords(0);
  }
  if (error.empty()) {
    for (CUpti_ActivityKind kind : kOptional) api.activityEnable(kind);
    if (what.nvtx) api.activityEnable(CUPTI_ACTIVITY_KIND_MARKER);
    // Event records carry a GPU time only with device timestamps.
    if (what.cudaEvents && api.activityEnableCudaEventDeviceTimestamps != nullptr &&
        api.activityEnableCudaEventDeviceTimestamps(1) == CUPTI_SUCCESS) {
      api.activityEnable(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
    }
  }
  if (!error.empty()) {
    disableAll(api);
    api.unsubscribe(profileSubscriber);
    profileSubscriber = nullptr;
    return error;
  }
  profileOn = true;
  return "";
}

void cuptiStopProfile() {
  std::lock_guard<std::mutex> lock(profileMutex);
  const CuptiApi& api = cuptiApi();
  if (!api.loaded()) return;
  disableAll(api);
  if (profileSubscriber != nullptr) {
    api.unsubscribe(profileSubscriber);
    profileSubscriber = nullptr;
  }
  profileOn = false;
}

}  // namespace streamscope
