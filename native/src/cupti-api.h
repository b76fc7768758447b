// CUPTI, loaded at run time with dlopen: a machine without CUPTI (or with another profiler
// holding it) still runs the addon, timed with cudaEvent pairs instead. Only types come from the
// headers; no CUPTI symbol is linked.
#pragma once

#include <cupti.h>

#include <string>

namespace streamscope {

struct CuptiApi {
  void* handle = nullptr;
  std::string error;  // why loading failed, when handle is null
  std::string path;
  CUptiResult (*getVersion)(uint32_t*) = nullptr;
  CUptiResult (*getResultString)(CUptiResult, const char**) = nullptr;
  CUptiResult (*getTimestamp)(uint64_t*) = nullptr;
  CUptiResult (*activityEnable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*activityDisable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*activityFlushAll)(uint32_t) = nullptr;
  CUptiResult (*activityGetNextRecord)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  CUptiResult (*activityGetNumDroppedRecords)(CUcontext, uint32_t, size_t*) = nullptr;
  CUptiResult (*activityRegisterCallbacks)(CUpti_BuffersCallbackRequestFunc,
                                           CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*activitySetAttribute)(CUpti_ActivityAttribute, size_t*, void*) = nullptr;
  CUptiResult (*activityEnableCudaEventDeviceTimestamps)(uint8_t) = nullptr;  // optional
  CUptiResult (*subscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = nullptr;
  CUptiResult (*unsubscribe)(CUpti_SubscriberHandle) = nullptr;
  CUptiResult (*enableDomain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) = nullptr;
  CUptiResult (*enableCallback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId) = nullptr;
  CUptiResult (*getCallbackName)(CUpti_CallbackDomain, uint32_t, const char**) = nullptr;  // optional
  CUptiResult (*setThreadIdType)(CUpti_ActivityThreadIdType) = nullptr;                     // optional
  CUptiResult (*activityEnableRuntimeApi)(CUpti_CallbackId, uint8_t) = nullptr;             // optional
  CUptiResult (*activityEnableDriverApi)(CUpti_CallbackId, uint8_t) = nullptr;              // optional
  CUptiResult (*activityEnableAllSyncRecords)(uint8_t) = nullptr;                           // optional

  bool loaded() const { return handle != nullptr; }
  /** "CUPTI_ERROR_X" for a result code, or the number when the library cannot say. */
  std::string resultName(CUptiResult r) const;
};

/**
 * The process-wide CUPTI table, loaded on first use (thread-safe): STREAMSCOPE_CUPTI_PATH when
 * set, else the sonames (a program such as PyTorch may have loaded its own copy already, which
 * dlopen then returns).
 */
const CuptiApi& cuptiApi();

}  // namespace streamscope
