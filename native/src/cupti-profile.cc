// CUPTI for a whole profiled process (the injection collector): what nsys's `--trace=cuda,nvtx`
// records, through the same buffer callbacks and flush thread as the executor (cupti-session.cc).
#include <cstdlib>
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

// Kinds without which the collector is pointless: a failure to enable one disables it. Each
// with the STREAMSCOPE_PROFILE_OFF bit that leaves it off (measurement only).
struct RequiredKind {
  CUpti_ActivityKind kind;
  uint32_t offBit;
};
constexpr RequiredKind kRequired[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, kOffKernel}, {CUPTI_ACTIVITY_KIND_MEMCPY, kOffCopy},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, kOffCopy},             {CUPTI_ACTIVITY_KIND_MEMSET, kOffMemset},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, kOffSync},
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
    // The <<<>>> syntax's own bookkeeping around each cudaLaunchKernel (nsys shows neither).
    "__cudaPushCallConfiguration", "__cudaPopCallConfiguration",
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

bool fineGrained(const CuptiApi& api) {
  return api.activityEnableRuntimeApi != nullptr && api.activityEnableDriverApi != nullptr &&
         api.getCallbackName != nullptr;
}

std::string check(CUptiResult r, const char* what) {
  return r == CUPTI_SUCCESS ? "" : std::string(what) + " failed: " + cuptiApi().resultName(r);
}

bool quietRuntime(const std::string& name) {
  for (const char* quiet : kQuietRuntime) {
    if (name == quiet) return true;
  }
  return false;
}

bool driverWork(const char* raw) {
  for (const char* prefix : kDriverWork) {
    if (std::strncmp(raw, prefix, std::strlen(prefix)) == 0) return true;
  }
  return false;
}

// API calls through our callback (what.apiCallback): every runtime call but the quiet ones, and
// the driver calls that do or wait for work; the callback leaves out those a runtime call makes.
// A callback id this CUPTI refuses is skipped (as the activity path skips one); none taken is an
// error.
std::string enableApiCallbacks(const CuptiApi& api, bool runtimeApi, bool driverApi) {
  size_t taken = 0;
  CUptiResult last = CUPTI_SUCCESS;
  auto enable = [&](CUpti_CallbackDomain domain, uint32_t cbid) {
    CUptiResult r = api.enableCallback(1, profileSubscriber, domain, cbid);
    if (r == CUPTI_SUCCESS) {
      taken++;
    } else {
      last = r;
    }
  };
  for (uint32_t cbid = 1; runtimeApi && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; cbid++) {
    const char* raw = nullptr;
    if (api.getCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &raw) != CUPTI_SUCCESS || raw == nullptr) continue;
    if (!quietRuntime(baseName(raw))) enable(CUPTI_CB_DOMAIN_RUNTIME_API, cbid);
  }
  for (uint32_t cbid = 1; driverApi && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++) {
    const char* raw = nullptr;
    if (api.getCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &raw) != CUPTI_SUCCESS || raw == nullptr) continue;
    if (driverWork(raw)) enable(CUPTI_CB_DOMAIN_DRIVER_API, cbid);
  }
  if (taken == 0 && (runtimeApi || driverApi)) return check(last, "cuptiEnableCallback");
  return "";
}

// Fine-grained runtime recording (every call but the quiet ones); false when this CUPTI cannot
// (the caller enables the whole kind).
bool chooseRuntimeApis(const CuptiApi& api) {
  if (!fineGrained(api) || api.activityEnable(CUPTI_ACTIVITY_KIND_RUNTIME) != CUPTI_SUCCESS) return false;
  for (uint32_t cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; cbid++) {
    const char* raw = nullptr;
    if (api.getCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &raw) != CUPTI_SUCCESS || raw == nullptr) continue;
    if (quietRuntime(baseName(raw))) api.activityEnableRuntimeApi(cbid, 0);
  }
  return true;
}

// The driver calls that do or wait for work, one by one.
void chooseDriverApis(const CuptiApi& api) {
  if (!fineGrained(api)) return;
  for (uint32_t cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++) {
    const char* raw = nullptr;
    if (api.getCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &raw) != CUPTI_SUCCESS || raw == nullptr) continue;
    if (driverWork(raw)) api.activityEnableDriverApi(cbid, 1);
  }
}

void CUPTIAPI noCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

void disableAll(const CuptiApi& api) {
  for (const RequiredKind& r : kRequired) api.activityDisable(r.kind);
  for (CUpti_ActivityKind kind : kOptional) api.activityDisable(kind);
  api.activityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
  api.activityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
  api.activityDisable(CUPTI_ACTIVITY_KIND_MARKER);
  api.activityDisable(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
}

}  // namespace

uint32_t profileOffBit(const std::string& word) {
  if (word == "all") {
    uint32_t all = 0;
    for (const ProfileOffName& n : kProfileOffNames) all |= n.bit;
    return all;
  }
  for (const ProfileOffName& n : kProfileOffNames) {
    if (word == n.name) return n.bit;
  }
  return 0;
}

std::string cuptiStartProfile(const ProfileActivities& what) {
  std::lock_guard<std::mutex> lock(profileMutex);
  if (profileOn) return "";
  const CuptiApi& api = cuptiApi();
  if (!api.loaded()) return api.error;
  // The subscription is how a second profiler shows itself: CUPTI allows one subscriber.
  // API calls through our callback when asked and this CUPTI names its callbacks; else (and for
  // every call, queries too) as CUPTI's API activity records.
  bool apiCallbacks = what.apiCallback != nullptr && !what.everyApiCall && fineGrained(api);
  std::string error = check(api.subscribe(&profileSubscriber, apiCallbacks ? what.apiCallback : noCallback, nullptr),
                            "cuptiSubscribe");
  if (!error.empty()) {
    profileSubscriber = nullptr;
    return error;
  }
  if (api.setThreadIdType != nullptr) {
    // Kernel thread ids (what /proc and nsys show), not pthread handles.
    api.setThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  }
  // Diagnosis only (issue #19's stall): CUPTI's device-side record buffer pool per context.
  if (const char* pool = std::getenv("STREAMSCOPE_CUPTI_DEVICE_POOL")) {
    size_t limit = std::strtoul(pool, nullptr, 10);
    size_t size = sizeof limit;
    if (limit > 0) api.activitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, &size, &limit);
  }
  if (what.pinnedDeviceBuffers) {
    uint8_t pinned = 1;
    size_t size = sizeof pinned;
    api.activitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &size, &pinned);
  }
  cuptiSetBuffers(what.bufferBytes, what.maxBufferBytes);
  error = cuptiRegisterBuffers();
  const uint32_t off = what.offKinds;
  for (const RequiredKind& r : kRequired) {
    if (error.empty() && (off & r.offBit) == 0) error = check(api.activityEnable(r.kind), "cuptiActivityEnable");
  }
  bool driverApi = what.driverApi && (off & kOffDriver) == 0;
  bool runtimeApi = (off & kOffRuntime) == 0;
  if (error.empty() && apiCallbacks) {
    error = enableApiCallbacks(api, runtimeApi, driverApi);
  } else if (error.empty() && runtimeApi && (what.everyApiCall || !chooseRuntimeApis(api))) {
    error = check(api.activityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "cuptiActivityEnable");
  }
  if (error.empty() && driverApi && !apiCallbacks) {
    if (what.everyApiCall) {
      api.activityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
    } else {
      chooseDriverApis(api);
    }
  }
  if (error.empty() && !what.pendingQueries && api.activityEnableAllSyncRecords != nullptr) {
    api.activityEnableAllSyncRecords(0);
  }
  if (error.empty()) {
    if ((off & kOffInfo) == 0) {
      for (CUpti_ActivityKind kind : kOptional) api.activityEnable(kind);
    }
    if (what.nvtx && (off & kOffNvtx) == 0) api.activityEnable(CUPTI_ACTIVITY_KIND_MARKER);
    // Event records carry a GPU time only with device timestamps.
    if (what.cudaEvents && (off & kOffEvent) == 0 && api.activityEnableCudaEventDeviceTimestamps != nullptr &&
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
