// Turns a profiled process's CUPTI activity records into trace ops, ranges and flows in a
// RecordSink: API calls on their thread's lane, GPU work on its stream's lane, NVTX ranges on
// their thread, API→GPU flows by correlation id and event record→wait flows by sync id.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "bounded-map.h"
#include "cupti-session.h"
#include "inject-api-calls.h"
#include "inject-tracks.h"
#include "record-sink.h"

namespace streamscope {

struct RecorderCounts {
  uint64_t cuptiDropped = 0;
  uint64_t incomplete = 0;      // GPU records without an end (the program exited first)
  uint64_t nestedDriver = 0;    // driver calls made inside a runtime call (not drawn twice)
  uint64_t records = 0;
  uint64_t dropped = 0;         // ops and ranges lost at a bound: lanes past kMaxTracks, open ranges
  uint64_t flowsDropped = 0;    // arrows whose other end was forgotten at a bound (collector-bounds.h)
  uint64_t detailsDropped = 0;  // launch configs, thread nesting, stream descriptions past a bound
};

/** How full the recorder's bounded tables are (the self-test's footprint; entries). */
struct RecorderFootprint {
  size_t apiByCorrelation = 0;
  size_t gpuByCorrelation = 0;
  size_t gpuLinksMostOnOneKey = 0;
  size_t recordsBySyncId = 0;
  size_t waitsBySyncId = 0;
  size_t waitLinksMostOnOneKey = 0;
  size_t openRanges = 0;
  size_t threads = 0;
  size_t launchConfigs = 0;
  size_t pendingDriver = 0;
  size_t tracks = 0;
  size_t streamsDescribed = 0;
  size_t contexts = 0;
};

class ProfileRecorder : public ActivityHandler {
 public:
  ProfileRecorder(RecordSink& sink, uint32_t pid, std::string processName, int64_t rank = -1);

  void onRecords(const std::vector<const CUpti_Activity*>& records) override;
  void onCuptiDropped(uint64_t n) override;
  /** Runtime and driver calls from our API callback (inject-api-calls.h): each drawn as it is. */
  void onApiCalls(const std::vector<ApiCallRecord>& calls);
  /** Once per flush: driver calls that waited long enough for an enclosing runtime call are drawn. */
  void tick(bool final);
  RecorderCounts counts();
  RecorderFootprint footprint();
  /** The end batch's counts: the sink's tables plus this process's structure. */
  CodecEndCounts endCounts();

 private:
  struct OpenRange {
    int64_t startNs = 0;
    uint32_t track = 0;
    uint32_t tid = 0;
    uint32_t nameId = 0;
    uint32_t domainId = 0;
    uint8_t depth = 0;
  };
  struct PendingDriver {
    CUpti_ActivityAPI api;
    uint64_t tick;
  };
  struct ThreadApi {
    std::deque<std::pair<int64_t, int64_t>> runtimeSpans;  // recent runtime calls (start, end)
    int64_t lastRuntimeEndNs = 0;
    uint32_t rangeDepth = 0;  // open push/pop ranges
  };

  void describe(const CUpti_Activity* r);
  void record(const CUpti_Activity* r);
  void api(const CUpti_ActivityAPI& a, CUpti_CallbackDomain domain);
  void gpuOp(uint32_t deviceId, uint32_t contextId, uint32_t streamId, int64_t startNs, int64_t endNs,
             uint8_t kind, uint32_t nameId, uint32_t correlationId, uint8_t flags, uint64_t bytes = 0,
             uint8_t memKinds = 0, uint32_t refId = kNoRef);
  void sync(const CUpti_ActivitySynchronization2& s);
  void eventRecord(const CUpti_ActivityCudaEvent2& e);
  void marker(const CUpti_ActivityMarker2& m);
  void linkApi(uint32_t correlationId, uint32_t apiOp);
  void linkGpu(uint32_t correlationId, uint32_t gpuOp);
  bool nestedInRuntime(const CUpti_ActivityAPI& d);
  ThreadApi& threadApi(uint32_t tid);
  void tickLocked(bool final);
  uint32_t apiName(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
  uint32_t kernelName(const char* mangled);
  uint32_t launchId(const CUpti_ActivityKernel10& k);

  std::mutex mutex_;
  RecordSink& sink_;
  TrackRegistry tracks_;
  RecorderCounts counts_;
  uint64_t tick_ = 0;
  std::unordered_map<uint64_t, uint32_t> apiNames_;
  std::unordered_map<std::string, uint32_t> kernelNames_;
  std::unordered_map<std::string, uint32_t> launchIds_;
  // Bounded (collector-bounds.h); apiNames_ is keyed by CUPTI's callback ids, a fixed set.
  BoundedMap<uint32_t> apiByCorrelation_{kMaxApiByCorrelation};
  BoundedMap<std::vector<uint32_t>> gpuByCorrelation_{kMaxGpuByCorrelation};
  BoundedMap<uint32_t> recordBySyncId_{kMaxRecordsBySyncId};
  BoundedMap<std::vector<uint32_t>> waitsBySyncId_{kMaxWaitsBySyncId};
  BoundedMap<OpenRange> openRanges_{kMaxOpenRanges};
  BoundedMap<ThreadApi> threadApi_{kMaxThreadsKept};
  // Waits whose record→wait arrow was lost at a bound. They count as dropped flows only once
  // event records arrive at all: without them (the default) no such arrow could be drawn.
  uint64_t waitLinksLost_ = 0;
  bool sawEventRecords_ = false;
  std::vector<PendingDriver> pendingDriver_;
};

}  // namespace streamscope
