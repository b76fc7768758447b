#include "cupti-api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace streamscope {

namespace {

template <typename Fn>
bool resolve(CuptiApi& api, Fn& slot, const char* name, bool required) {
  slot = reinterpret_cast<Fn>(dlsym(api.handle, name));
  if (slot == nullptr && required) {
    api.error = std::string("CUPTI lacks ") + name;
    return false;
  }
  return true;
}

void load(CuptiApi& api) {
  // An explicit path first (the profiler's CLI passes the one it found); then the soname of CUDA
  // 13's CUPTI; the unversioned name covers toolkit-only installs.
  const char* explicitPath = std::getenv("STREAMSCOPE_CUPTI_PATH");
  if (explicitPath != nullptr && explicitPath[0] != '\0') {
    api.handle = dlopen(explicitPath, RTLD_NOW | RTLD_LOCAL);
    if (api.handle == nullptr) {
      const char* why = dlerror();
      api.error = std::string("STREAMSCOPE_CUPTI_PATH ") + explicitPath + " not loadable: " + (why != nullptr ? why : "?");
      return;
    }
    api.path = explicitPath;
  }
  for (const char* name : {"libcupti.so.13", "libcupti.so"}) {
    if (api.handle != nullptr) break;
    api.handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (api.handle != nullptr) api.path = name;
  }
  if (api.handle == nullptr) {
    const char* why = dlerror();
    api.error = std::string("libcupti.so.13 not loadable: ") + (why != nullptr ? why : "not found");
    return;
  }
  bool ok = resolve(api, api.getVersion, "cuptiGetVersion", true) &&
            resolve(api, api.getResultString, "cuptiGetResultString", true) &&
            resolve(api, api.getTimestamp, "cuptiGetTimestamp", true) &&
            resolve(api, api.activityEnable, "cuptiActivityEnable", true) &&
            resolve(api, api.activityDisable, "cuptiActivityDisable", true) &&
            resolve(api, api.activityFlushAll, "cuptiActivityFlushAll", true) &&
            resolve(api, api.activityGetNextRecord, "cuptiActivityGetNextRecord", true) &&
            resolve(api, api.activityGetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords", true) &&
            resolve(api, api.activityRegisterCallbacks, "cuptiActivityRegisterCallbacks", true) &&
            resolve(api, api.activitySetAttribute, "cuptiActivitySetAttribute", true) &&
            resolve(api, api.activityEnableCudaEventDeviceTimestamps,
                    "cuptiActivityEnableCudaEventDeviceTimestamps", false) &&
            resolve(api, api.subscribe, "cuptiSubscribe", true) &&
            resolve(api, api.unsubscribe, "cuptiUnsubscribe", true) &&
            resolve(api, api.enableDomain, "cuptiEnableDomain", true) &&
            resolve(api, api.enableCallback, "cuptiEnableCallback", true) &&
            resolve(api, api.getCallbackName, "cuptiGetCallbackName", false) &&
            resolve(api, api.setThreadIdType, "cuptiSetThreadIdType", false) &&
            resolve(api, api.activityEnableRuntimeApi, "cuptiActivityEnableRuntimeApi", false) &&
            resolve(api, api.activityEnableDriverApi, "cuptiActivityEnableDriverApi", false) &&
            resolve(api, api.activityEnableAllSyncRecords, "cuptiActivityEnableAllSyncRecords", false);
  if (!ok) {
    dlclose(api.handle);
    api.handle = nullptr;
  }
}

}  // namespace

std::string CuptiApi::resultName(CUptiResult r) const {
  const char* text = nullptr;
  if (getResultString != nullptr && getResultString(r, &text) == CUPTI_SUCCESS && text != nullptr) {
    return std::string(text) + " (" + std::to_string(static_cast<int>(r)) + ")";
  }
  return "CUPTI error " + std::to_string(static_cast<int>(r));
}

const CuptiApi& cuptiApi() {
  static CuptiApi api;
  static std::once_flag once;
  std::call_once(once, [] { load(api); });
  return api;
}

}  // namespace streamscope
