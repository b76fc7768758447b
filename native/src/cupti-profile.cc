// CUPTI for a whole profiled process (the injection collector): what nsys's `--trace=cuda,nvtx`
// records, through the same buffer callbacks and flush thread as the executor (cupti-session.cc).
#include <mutex>

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
    CUPTI_ACTIVITY_KIND_MEMSET,            CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
};
// Kinds that only add detail: device names, stream types, contexts' default streams, events.
constexpr CUpti_ActivityKind kOptional[] = {
    CUPTI_ACTIVITY_KIND_DEVICE,
    CUPTI_ACTIVITY_KIND_CONTEXT,
    CUPTI_ACTIVITY_KIND_STREAM,
};

void CUPTIAPI noCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

std::string check(CUptiResult r, const char* what) {
  return r == CUPTI_SUCCESS ? "" : std::string(what) + " failed: " + cuptiApi().resultName(r);
}

void disableAll(const CuptiApi& api) {
  for (CUpti_ActivityKind kind : kRequired) api.activityDisable(kind);
  for (CUpti_ActivityKind kind : kOptional) api.activityDisable(kind);
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
  cuptiSetBuffers(what.bufferBytes, what.maxBufferBytes);
  error = cuptiRegisterBuffers();
  for (CUpti_ActivityKind kind : kRequired) {
    if (error.empty()) error = check(api.activityEnable(kind), "cuptiActivityEnable");
  }
  if (error.empty()) {
    for (CUpti_ActivityKind kind : kOptional) api.activityEnable(kind);
    if (what.driverApi) api.activityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
    if (what.nvtx) api.activityEnable(CUPTI_ACTIVITY_KIND_MARKER);
    // Event records carry a GPU time only with device timestamps.
    if (api.activityEnableCudaEventDeviceTimestamps != nullptr &&
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
