// The recorder's links (inject-recorder.h): API→GPU flows by correlation id, record→wait flows
// by CUDA event sync id, and NVTX ranges matched start to end. Every table here is bounded
// (collector-bounds.h) and what a bound drops is counted.
#include <algorithm>

#include "inject-recorder.h"

namespace streamscope {

namespace {
constexpr uint32_t kNoStream = 0xffffffffu;  // a sync record that names no stream
}  // namespace

void ProfileRecorder::linkApi(uint32_t correlationId, uint32_t apiOp) {
  if (correlationId == 0) return;
  apiByCorrelation_.at(correlationId) = apiOp;
  if (std::vector<uint32_t>* waiting = gpuByCorrelation_.find(correlationId)) {
    // Only GPU ops that waited: the usual order (the call's record first) keeps none here.
    for (uint32_t gpu : *waiting) sink_.pushFlow(apiOp, gpu, kFlowApiToGpu);
    gpuByCorrelation_.erase(correlationId);
  }
}

void ProfileRecorder::linkGpu(uint32_t correlationId, uint32_t gpuOp) {
  if (correlationId == 0) return;
  if (uint32_t* apiOp = apiByCorrelation_.find(correlationId)) {
    sink_.pushFlow(*apiOp, gpuOp, kFlowApiToGpu);
    return;
  }
  // Forgotten at the bound before its call arrived: those GPU ops get no arrow from it.
  auto forgotten = [this](const std::vector<uint32_t>& ops) { counts_.flowsDropped += ops.size(); };
  std::vector<uint32_t>& waiting = gpuByCorrelation_.at(correlationId, forgotten);
  if (waiting.size() >= kMaxLinksPerKey) {
    counts_.flowsDropped++;
    return;
  }
  waiting.push_back(gpuOp);
}

void ProfileRecorder::sync(const CUpti_ActivitySynchronization2& s) {
  uint8_t kind = kStreamSync;
  const char* name = "Stream synchronize";
  switch (s.type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: kind = kEventSync; name = "Event synchronize"; break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: kind = kStreamWait; name = "Stream wait event"; break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: kind = kDeviceSync; name = "Context synchronize"; break;
    default: break;
  }
  if (s.end < s.start) {
    counts_.incomplete++;
    return;
  }
  uint32_t track = s.streamId == kNoStream || kind == kDeviceSync
                       ? tracks_.contextSync(s.contextId)
                       : tracks_.stream(tracks_.deviceOf(s.contextId), s.contextId, s.streamId);
  if (track == kNoTrack) {
    counts_.dropped++;
    return;
  }
  uint32_t op = sink_.pushOp(static_cast<int64_t>(s.start), static_cast<int64_t>(s.end), track, kind, sink_.intern(name),
                             s.correlationId, kFlagSync);
  if (op == WaitLinker::kNone || s.cudaEventSyncId == 0) return;
  if (uint32_t* recordOp = recordBySyncId_.find(s.cudaEventSyncId)) {
    sink_.pushFlow(*recordOp, op, kFlowRecordToWait);
    return;
  }
  auto forgotten = [this](const std::vector<uint32_t>& waits) { waitLinksLost_ += waits.size(); };
  std::vector<uint32_t>& waits = waitsBySyncId_.at(s.cudaEventSyncId, forgotten);
  if (waits.size() >= kMaxLinksPerKey) {
    waitLinksLost_++;  // one record waited on past the bound: this wait gets no arrow
    return;
  }
  waits.push_back(op);
}

void ProfileRecorder::eventRecord(const CUpti_ActivityCudaEvent2& e) {
  if (e.deviceTimestamp == 0) return;  // no GPU time without device timestamps
  sawEventRecords_ = true;
  int64_t t = static_cast<int64_t>(e.deviceTimestamp);
  uint32_t track = tracks_.stream(e.deviceId, e.contextId, e.streamId);
  if (track == kNoTrack) {
    counts_.dropped++;
    return;
  }
  uint32_t op = sink_.pushOp(t, t, track, kEventRecord, sink_.intern("Event record"), e.correlationId);
  if (op == WaitLinker::kNone) return;
  linkGpu(e.correlationId, op);
  if (e.cudaEventSyncId == 0) return;
  recordBySyncId_.at(e.cudaEventSyncId) = op;
  if (std::vector<uint32_t>* waits = waitsBySyncId_.find(e.cudaEventSyncId)) {
    for (uint32_t wait : *waits) sink_.pushFlow(op, wait, kFlowRecordToWait);
    waitsBySyncId_.erase(e.cudaEventSyncId);
  }
}

void ProfileRecorder::marker(const CUpti_ActivityMarker2& m) {
  if (m.objectKind != CUPTI_ACTIVITY_OBJECT_THREAD && m.objectKind != CUPTI_ACTIVITY_OBJECT_PROCESS) return;
  uint32_t tid = m.objectId.pt.threadId;
  int64_t t = static_cast<int64_t>(m.timestamp);
  uint32_t domainId = m.domain != nullptr && m.domain[0] != '\0' ? sink_.intern(m.domain) : 0;
  if ((m.flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) != 0) {
    CodecRange r;
    r.startNs = r.endNs = t;
    r.track = tracks_.thread(tid);
    if (r.track == kNoTrack) {
      counts_.dropped++;
      return;
    }
    r.nameId = sink_.intern(m.name != nullptr ? m.name : "");
    r.domainId = domainId;
    r.kind = 2;  // RangeKind.Mark
    sink_.pushRange(r);
    return;
  }
  if ((m.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) != 0) {
    uint32_t track = tracks_.thread(tid);
    if (track == kNoTrack) {
      counts_.dropped++;
      return;
    }
    // A range still open when kMaxOpenRanges newer ones opened is forgotten: dropped, counted.
    OpenRange& open = openRanges_.at(m.id, [this](const OpenRange&) { counts_.dropped++; });
    open.startNs = t;
    open.tid = tid;
    open.track = track;
    open.nameId = sink_.intern(m.name != nullptr ? m.name : "");
    open.domainId = domainId;
    open.depth = static_cast<uint8_t>(std::min<uint32_t>(threadApi(tid).rangeDepth++, 255));
    return;
  }
  if ((m.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) != 0) {
    OpenRange* open = openRanges_.find(m.id);
    if (open == nullptr) return;
    uint32_t& depth = threadApi(open->tid).rangeDepth;
    if (depth > 0) depth--;
    CodecRange r;
    r.startNs = open->startNs;
    r.endNs = t;
    r.track = open->track;
    r.nameId = open->nameId;
    r.domainId = open->domainId;
    r.depth = open->depth;
    // Ended on the thread that opened it and innermost: a push/pop range; else a start/end one.
    bool pushPop = tid == open->tid && depth == open->depth;
    r.kind = pushPop ? 0 : 1;
    if (!pushPop) r.depth = 0;
    sink_.pushRange(r);
    openRanges_.erase(m.id);
  }
}

}  // namespace streamscope
