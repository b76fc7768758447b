// Floods for the collector's self-test: each drives the real recorder, sink and transport with
// millions of CUPTI-shaped records that push one bounded table (collector-bounds.h) past its
// bound, a buffer of kFloodBuffer records at a time, one reused buffer, so the self-test itself
// holds no more memory for 10M records than for 4096. `footprint` prints how full every table is.
#include "inject-selftest-floods.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "collector-bounds.h"
#include "inject-collector.h"
#include "record-sink.h"

namespace streamscope {

namespace {

constexpr uint64_t kFloodBuffer = 4096;
constexpr uint64_t kFlowsBuffer = 256;  // below the smallest record cap (1024): every GPU op is kept
constexpr uint32_t kFloodContext = 1;
constexpr uint32_t kFloodDevice = 0;
constexpr uint32_t kFloodStream = 13;
constexpr uint32_t kFloodTid = 77;
constexpr uint32_t kLaunchCbid = 211;  // cudaLaunchKernel_v7000
constexpr uint32_t kFirstCorrelation = 1u << 30;  // above any a script names

// One flood's records: reused storage for a buffer of one record type.
template <typename T>
class Buffer {
 public:
  T& add(CUpti_ActivityKind kind) {
    records_.emplace_back();
    T& r = records_.back();
    r = T{};
    r.kind = kind;
    return r;
  }
  size_t size() const { return records_.size(); }
  // Hands the buffer to the recorder as CUPTI would, then (`flush`) drains as the flush thread does.
  void deliver(bool flush) {
    pointers_.clear();
    for (const T& r : records_) pointers_.push_back(reinterpret_cast<const CUpti_Activity*>(&r));
    if (!pointers_.empty()) collectorRecorder()->onRecords(pointers_);
    records_.clear();
    if (flush) collectorAfterFlush();
  }

 private:
  std::vector<T> records_;
  std::vector<const CUpti_Activity*> pointers_;
};

uint64_t at(uint64_t i) { return static_cast<uint64_t>(collectorOriginNs()) + 1000 + 10 * i; }

CUpti_ActivityKernel10& kernel(Buffer<CUpti_ActivityKernel10>& b, uint64_t i, uint32_t stream, uint32_t corr) {
  auto& k = b.add(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  k.deviceId = kFloodDevice;
  k.contextId = kFloodContext;
  k.streamId = stream;
  k.correlationId = corr;
  k.start = at(i);
  k.end = at(i) + 5;
  k.name = "flood_kernel";
  k.gridX = k.gridY = k.gridZ = 1;
  k.blockX = 128;
  k.blockY = k.blockZ = 1;
  return k;
}

// GPU records whose API call never arrives: each waits in gpuByCorrelation_ for its call.
void unlinked(uint64_t n) {
  Buffer<CUpti_ActivityKernel10> b;
  for (uint64_t i = 0; i < n; i++) {
    kernel(b, i, kFloodStream, kFirstCorrelation + static_cast<uint32_t>(i));
    if (b.size() == kFloodBuffer || i + 1 == n) b.deliver(true);
  }
}

// Stream waits on event records that never arrive (event records are collected: one arrives
// first, for a sync id nobody waits on): on one sync id, or each on its own.
void waits(uint64_t n, bool sameSyncId) {
  Buffer<CUpti_ActivityCudaEvent2> e;
  auto& record = e.add(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
  record.contextId = kFloodContext;
  record.streamId = kFloodStream;
  record.cudaEventSyncId = 1ull << 50;
  record.deviceTimestamp = at(0);
  e.deliver(false);
  Buffer<CUpti_ActivitySynchronization2> b;
  for (uint64_t i = 0; i < n; i++) {
    auto& y = b.add(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
    y.contextId = kFloodContext;
    y.streamId = kFloodStream + 1;
    y.cudaEventSyncId = sameSyncId ? 7 : 1000 + i;
    y.correlationId = kFirstCorrelation + static_cast<uint32_t>(i);
    y.start = at(i);
    y.end = at(i) + 5;
    if (b.size() == kFloodBuffer || i + 1 == n) b.deliver(true);
  }
}

// NVTX start/end ranges that never end.
void ranges(uint64_t n) {
  Buffer<CUpti_ActivityMarker2> b;
  for (uint64_t i = 0; i < n; i++) {
    auto& m = b.add(CUPTI_ACTIVITY_KIND_MARKER);
    m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    m.objectId.pt.threadId = kFloodTid;
    m.id = static_cast<uint32_t>(i + 1000);
    m.timestamp = at(i);
    m.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
    m.name = "open";
    if (b.size() == kFloodBuffer || i + 1 == n) b.deliver(true);
  }
}

// Marks with a new name each: the interned names grow.
void names(uint64_t n) {
  Buffer<CUpti_ActivityMarker2> b;
  std::vector<std::string> text(kFloodBuffer);
  for (uint64_t i = 0; i < n; i++) {
    text[b.size()] = "mark-" + std::to_string(i);
    auto& m = b.add(CUPTI_ACTIVITY_KIND_MARKER);
    m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    m.objectId.pt.threadId = kFloodTid;
    m.timestamp = at(i);
    m.flags = CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS;
    m.name = text[b.size() - 1].c_str();
    if (b.size() == kFloodBuffer || i + 1 == n) b.deliver(true);
  }
}

// API calls, each from a thread never seen before (a program that churns through threads).
void threads(uint64_t n) {
  Buffer<CUpti_ActivityAPI> b;
  for (uint64_t i = 0; i < n; i++) {
    auto& a = b.add(CUPTI_ACTIVITY_KIND_RUNTIME);
    a.cbid = kLaunchCbid;
    a.threadId = static_cast<uint32_t>(100000 + i);
    a.correlationId = kFirstCorrelation + static_cast<uint32_t>(i);
    a.start = at(i);
    a.end = at(i) + 5;
    if (b.size() == kFloodBuffer || i + 1 == n) b.deliver(true);
  }
}

// Streams created (described by CUPTI) and used once each (a program that churns through streams).
void streams(uint64_t n) {
  Buffer<CUpti_ActivityStream> described;
  Buffer<CUpti_ActivityKernel10> b;
  for (uint64_t i = 0; i < n; i++) {
    auto stream = static_cast<uint32_t>(1000 + i);
    auto& s = described.add(CUPTI_ACTIVITY_KIND_STREAM);
    s.contextId = kFloodContext;
    s.streamId = stream;
    s.flag = CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING;
    kernel(b, i, stream, 0);
    if (b.size() == kFloodBuffer || i + 1 == n) {
      described.deliver(false);
      b.deliver(true);
    }
  }
}

// Kernels each with a launch configuration never seen before (dynamic shapes).
void launches(uint64_t n) {
  Buffer<CUpti_ActivityKernel10> b;
  for (uint64_t i = 0; i < n; i++) {
    kernel(b, i, kFloodStream, 0).gridX = static_cast<int32_t>(i + 1);
    if (b.size() == kFloodBuffer || i + 1 == n) b.deliver(true);
  }
}

// M correlations, each with kMaxLinksPerKey GPU records (sent), then their M API calls with no
// drain between them: each call links kMaxLinksPerKey flows at once, past the flow queue's bound.
void flows(uint64_t m) {
  Buffer<CUpti_ActivityKernel10> b;
  uint64_t i = 0;
  for (uint64_t c = 0; c < m; c++) {
    for (size_t k = 0; k < kMaxLinksPerKey; k++, i++) {
      kernel(b, i, kFloodStream, kFirstCorrelation + static_cast<uint32_t>(c));
      if (b.size() == kFlowsBuffer) b.deliver(true);
    }
  }
  b.deliver(true);
  Buffer<CUpti_ActivityAPI> calls;
  for (uint64_t c = 0; c < m; c++) {
    auto& a = calls.add(CUPTI_ACTIVITY_KIND_RUNTIME);
    a.cbid = kLaunchCbid;
    a.threadId = kFloodTid;
    a.correlationId = kFirstCorrelation + static_cast<uint32_t>(c);
    a.start = at(c);
    a.end = at(c) + 5;
    if (calls.size() == kFloodBuffer) calls.deliver(false);
  }
  calls.deliver(false);
}

// The executor's side of the sink (no GPU here, so it is driven directly): N issued ops whose
// GPU records come only for the first and last kJoined, then N stream waits whose event record
// never completes. Their ops land on lane 0, made by the flood's first record.
constexpr uint32_t kJoined = 1000;

std::string issued(uint64_t n) {
  if (collectorRecorder()->footprint().tracks != 0) return "flood issued must come before any lane is made";
  Buffer<CUpti_ActivityKernel10> lane;
  kernel(lane, 0, kFloodStream, 0);
  lane.deliver(true);
  RecordSink& sink = *collectorSink();
  IssuedOp op;
  op.nameId = sink.intern("issued_kernel");
  for (uint64_t i = 0; i < n; i++) sink.issued(kFirstCorrelation + static_cast<uint32_t>(i), op);
  std::vector<GpuRecord> records;
  for (uint64_t i = 0; i < n; i++) {
    if (i >= kJoined && i + kJoined < n) continue;
    GpuRecord r;
    r.startNs = static_cast<int64_t>(at(i));
    r.endNs = r.startNs + 5;
    r.correlationId = kFirstCorrelation + static_cast<uint32_t>(i);
    records.push_back(r);
  }
  sink.pushGpu(records);
  collectorAfterFlush();
  return "";
}

void pendingWaits(uint64_t n) {
  RecordSink& sink = *collectorSink();
  IssuedOp record;
  record.event = 0;
  uint32_t correlation = kFirstCorrelation - 1;
  sink.issued(correlation, record);  // its GPU record never arrives
  WaitIssue wait;
  wait.nameId = sink.intern("Stream wait event");
  wait.event = 0;
  for (uint64_t i = 0; i < n; i++) {
    wait.apiStartNs = static_cast<int64_t>(at(i));
    sink.waitIssued(wait);
    if ((i + 1) % kFloodBuffer == 0) collectorAfterFlush();
  }
}

uint64_t residentKb() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    uint64_t kb = 0;
    if (key == "VmRSS:" && in >> kb) return kb;
    in.ignore(1 << 12, '\n');
  }
  return 0;
}

}  // namespace

std::string flood(const std::string& what, uint64_t n) {
  if (what == "unlinked") {
    unlinked(n);
  } else if (what == "waits-one-event") {
    waits(n, true);
  } else if (what == "waits") {
    waits(n, false);
  } else if (what == "ranges") {
    ranges(n);
  } else if (what == "names") {
    names(n);
  } else if (what == "threads") {
    threads(n);
  } else if (what == "streams") {
    streams(n);
  } else if (what == "launches") {
    launches(n);
  } else if (what == "flows") {
    flows(n);
  } else if (what == "issued") {
    return issued(n);
  } else if (what == "pending-waits") {
    pendingWaits(n);
  } else {
    return "flood takes unlinked|waits-one-event|waits|ranges|names|threads|streams|launches|flows|issued|"
           "pending-waits N";
  }
  return "";
}

void printFootprint() {
  SinkFootprint s = collectorSink()->footprint();
  RecorderFootprint r = collectorRecorder()->footprint();
  // name held bound, one per line after the first: the test checks every held <= bound.
  std::printf("footprint rssKb=%llu\n", static_cast<unsigned long long>(residentKb()));
  auto row = [](const char* name, size_t held, size_t bound) {
    std::printf("  %s %zu %zu\n", name, held, bound);
  };
  row("strings", s.strings, kMaxStrings);
  row("stringBytes", s.stringBytes, kMaxStringBytes);
  row("queuedFlows", s.queuedFlows, kMaxQueuedFlows);
  row("issued", s.issued, kMaxIssuedOps);
  row("apiOpIndex", s.apiOpIndex, kMaxApiByCorrelation);
  row("pendingWaits", s.pendingWaits, kMaxPendingWaits);
  row("apiByCorrelation", r.apiByCorrelation, kMaxApiByCorrelation);
  row("gpuByCorrelation", r.gpuByCorrelation, kMaxGpuByCorrelation);
  row("gpuLinksOnOneKey", r.gpuLinksMostOnOneKey, kMaxLinksPerKey);
  row("recordsBySyncId", r.recordsBySyncId, kMaxRecordsBySyncId);
  row("waitsBySyncId", r.waitsBySyncId, kMaxWaitsBySyncId);
  row("waitLinksOnOneKey", r.waitLinksMostOnOneKey, kMaxLinksPerKey);
  row("openRanges", r.openRanges, kMaxOpenRanges);
  row("threads", r.threads, kMaxThreadsKept);
  row("launchConfigs", r.launchConfigs, kMaxLaunchConfigs);
  row("tracks", r.tracks, kMaxTracks);
  row("streamsDescribed", r.streamsDescribed, kMaxStreamsDescribed);
  row("contexts", r.contexts, kMaxContexts);
  SinkCounts c = collectorSink()->counts();
  std::printf("counts unmatched=%llu unresolvedWaits=%llu opsOut=%llu\n", static_cast<unsigned long long>(c.unmatched),
              static_cast<unsigned long long>(c.unresolvedWaits), static_cast<unsigned long long>(c.opsOut));
  std::fflush(stdout);
}

}  // namespace streamscope
