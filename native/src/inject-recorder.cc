#include "inject-recorder.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "cupti-api.h"
#include "demangle.h"

namespace streamscope {

namespace {

// A driver call waits this many flushes for the runtime call that may enclose it.
constexpr uint64_t kDriverWaitTicks = 3;
constexpr size_t kMaxPendingDriver = 1u << 16;
// Demangled kernel names cached (past it a name is demangled again each time; the sink bounds ids).
constexpr size_t kMaxKernelNamesCached = 1u << 16;

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": the version suffix is CUPTI's, not the API's.
std::string apiBaseName(const char* raw) {
  std::string name = raw;
  size_t v = name.rfind("_v");
  if (v != std::string::npos && v + 2 < name.size() &&
      name.find_first_not_of("0123456789", v + 2) == std::string::npos) {
    name.resize(v);
  }
  return name;
}

const char* copyLabel(uint8_t kind) {
  switch (kind) {
    case kCopyHtoD: return "Memcpy HtoD";
    case kCopyDtoH: return "Memcpy DtoH";
    case kCopyPtoP: return "Memcpy PtoP";
    case kCopyHtoH: return "Memcpy HtoH";
    default: return "Memcpy DtoD";
  }
}

}  // namespace

ProfileRecorder::ProfileRecorder(RecordSink& sink, uint32_t pid, std::string processName, int64_t rank)
    : sink_(sink), tracks_(sink, pid, std::move(processName), rank) {}

void ProfileRecorder::onRecords(const std::vector<const CUpti_Activity*>& records) {
  std::lock_guard<std::mutex> lock(mutex_);
  counts_.records += records.size();
  // Devices, contexts and streams first: the ops of the same buffer then get the right lane type.
  for (const CUpti_Activity* r : records) describe(r);
  for (const CUpti_Activity* r : records) record(r);
}

void ProfileRecorder::onCuptiDropped(uint64_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  counts_.cuptiDropped += n;
}

void ProfileRecorder::onApiCalls(const std::vector<ApiCallRecord>& calls) {
  std::lock_guard<std::mutex> lock(mutex_);
  counts_.records += calls.size();
  for (const ApiCallRecord& c : calls) {
    CUpti_ActivityAPI a{};
    a.kind = c.domain == CUPTI_CB_DOMAIN_DRIVER_API ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = c.cbid;
    a.start = c.startNs;
    a.end = c.endNs;
    a.threadId = c.threadId;
    a.correlationId = c.correlationId;
    api(a, static_cast<CUpti_CallbackDomain>(c.domain));
  }
}

RecorderCounts ProfileRecorder::counts() {
  std::lock_guard<std::mutex> lock(mutex_);
  RecorderCounts c = counts_;
  if (sawEventRecords_) c.flowsDropped += waitLinksLost_;
  c.detailsDropped += tracks_.undescribed();
  return c;
}

RecorderFootprint ProfileRecorder::footprint() {
  std::lock_guard<std::mutex> lock(mutex_);
  RecorderFootprint f;
  f.apiByCorrelation = apiByCorrelation_.size();
  f.gpuByCorrelation = gpuByCorrelation_.size();
  gpuByCorrelation_.forEach([&f](const std::vector<uint32_t>& v) {
    f.gpuLinksMostOnOneKey = std::max(f.gpuLinksMostOnOneKey, v.size());
  });
  f.recordsBySyncId = recordBySyncId_.size();
  f.waitsBySyncId = waitsBySyncId_.size();
  waitsBySyncId_.forEach([&f](const std::vector<uint32_t>& v) {
    f.waitLinksMostOnOneKey = std::max(f.waitLinksMostOnOneKey, v.size());
  });
  f.openRanges = openRanges_.size();
  f.threads = threadApi_.size();
  f.launchConfigs = launchIds_.size();
  f.pendingDriver = pendingDriver_.size();
  f.tracks = tracks_.tracks();
  f.streamsDescribed = tracks_.streamsDescribed();
  f.contexts = tracks_.contexts();
  return f;
}

ProfileRecorder::ThreadApi& ProfileRecorder::threadApi(uint32_t tid) {
  // A thread forgotten at the bound loses its nesting: a driver call of its next runtime call
  // may be drawn too, and its open push/pop ranges restart at depth 0.
  return threadApi_.at(tid, [this](const ThreadApi&) { counts_.detailsDropped++; });
}

CodecEndCounts ProfileRecorder::endCounts() {
  std::lock_guard<std::mutex> lock(mutex_);
  CodecEndCounts c = sink_.sentCounts();
  c.devices = tracks_.devices();
  c.processes = tracks_.processes();
  c.tracks = tracks_.tracks();
  return c;
}

void ProfileRecorder::describe(const CUpti_Activity* r) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_DEVICE:
      tracks_.device(*reinterpret_cast<const CUpti_ActivityDevice5*>(r));
      break;
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
      const auto* c = reinterpret_cast<const CUpti_ActivityContext3*>(r);
      tracks_.context(c->contextId, c->deviceId, c->nullStreamId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_STREAM: {
      const auto* s = reinterpret_cast<const CUpti_ActivityStream*>(r);
      tracks_.stream(s->contextId, s->streamId, s->priority, s->flag);
      break;
    }
    default:
      break;
  }
}

void ProfileRecorder::record(const CUpti_Activity* r) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      api(*reinterpret_cast<const CUpti_ActivityAPI*>(r), CUPTI_CB_DOMAIN_RUNTIME_API);
      break;
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* d = reinterpret_cast<const CUpti_ActivityAPI*>(r);
      if (pendingDriver_.size() >= kMaxPendingDriver) tickLocked(false);
      pendingDriver_.push_back(PendingDriver{*d, tick_});
      break;
    }
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
      gpuOp(k->deviceId, k->contextId, k->streamId, static_cast<int64_t>(k->start), static_cast<int64_t>(k->end),
            kKernel, kernelName(k->name != nullptr ? k->name : "kernel"), k->correlationId,
            k->graphId != 0 ? kFlagInGraph : 0, 0, 0, launchId(*k));
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
      uint8_t kind = copyKindOf(m->copyKind);
      gpuOp(m->deviceId, m->contextId, m->streamId, static_cast<int64_t>(m->start), static_cast<int64_t>(m->end),
            kind, sink_.intern(copyLabel(kind)), m->correlationId, m->graphId != 0 ? kFlagInGraph : 0, m->bytes,
            packKinds(m->srcKind, m->dstKind));
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(r);
      gpuOp(m->deviceId, m->contextId, m->streamId, static_cast<int64_t>(m->start), static_cast<int64_t>(m->end),
            kCopyPtoP, sink_.intern(copyLabel(kCopyPtoP)), m->correlationId, m->graphId != 0 ? kFlagInGraph : 0,
            m->bytes, packKinds(m->srcKind, m->dstKind));
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
      gpuOp(m->deviceId, m->contextId, m->streamId, static_cast<int64_t>(m->start), static_cast<int64_t>(m->end),
            kMemset, sink_.intern("Memset"), m->correlationId, m->graphId != 0 ? kFlagInGraph : 0, m->bytes,
            packKinds(0, m->memoryKind));
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      sync(*reinterpret_cast<const CUpti_ActivitySynchronization2*>(r));
      break;
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      eventRecord(*reinterpret_cast<const CUpti_ActivityCudaEvent2*>(r));
      break;
    case CUPTI_ACTIVITY_KIND_MARKER:
      marker(*reinterpret_cast<const CUpti_ActivityMarker2*>(r));
      break;
    default:
      break;
  }
}

uint32_t ProfileRecorder::apiName(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  uint64_t key = (static_cast<uint64_t>(domain) << 32) | cbid;
  auto found = apiNames_.find(key);
  if (found != apiNames_.end()) return found->second;
  const char* raw = nullptr;
  const CuptiApi& cupti = cuptiApi();
  std::string name;
  if (cupti.getCallbackName != nullptr && cupti.getCallbackName(domain, cbid, &raw) == CUPTI_SUCCESS && raw != nullptr) {
    name = apiBaseName(raw);
  } else {
    name = std::string(domain == CUPTI_CB_DOMAIN_DRIVER_API ? "driver call " : "runtime call ") + std::to_string(cbid);
  }
  uint32_t id = sink_.intern(name);
  apiNames_.emplace(key, id);
  return id;
}

uint32_t ProfileRecorder::kernelName(const char* mangled) {
  auto found = kernelNames_.find(mangled);
  if (found != kernelNames_.end()) return found->second;
  uint32_t id = sink_.intern(demangleName(mangled));
  if (kernelNames_.size() < kMaxKernelNamesCached) kernelNames_.emplace(mangled, id);
  return id;
}

uint32_t ProfileRecorder::launchId(const CUpti_ActivityKernel10& k) {
  CodecLaunch l;
  l.gridX = static_cast<uint32_t>(k.gridX);
  l.gridY = static_cast<uint32_t>(k.gridY);
  l.gridZ = static_cast<uint32_t>(k.gridZ);
  l.blockX = static_cast<uint32_t>(k.blockX);
  l.blockY = static_cast<uint32_t>(k.blockY);
  l.blockZ = static_cast<uint32_t>(k.blockZ);
  l.sharedMemBytes = static_cast<uint32_t>(k.staticSharedMemory + k.dynamicSharedMemory);
  l.registersPerThread = k.registersPerThread;
  std::string key(reinterpret_cast<const char*>(&l), sizeof l);
  auto found = launchIds_.find(key);
  if (found != launchIds_.end()) return found->second;
  if (launchIds_.size() >= kMaxLaunchConfigs) {
    counts_.detailsDropped++;  // the kernel is kept, without its launch configuration
    return kNoRef;
  }
  uint32_t id = sink_.addLaunch(l);
  launchIds_.emplace(std::move(key), id);
  return id;
}

void ProfileRecorder::api(const CUpti_ActivityAPI& a, CUpti_CallbackDomain domain) {
  uint32_t track = tracks_.thread(a.threadId);
  if (track == kNoTrack) {
    counts_.dropped++;
    return;
  }
  uint32_t nameId = apiName(domain, a.cbid);
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    ThreadApi& t = threadApi(a.threadId);
    t.runtimeSpans.emplace_back(static_cast<int64_t>(a.start), static_cast<int64_t>(a.end));
    if (t.runtimeSpans.size() > kRuntimeSpansKept) t.runtimeSpans.pop_front();
    t.lastRuntimeEndNs = std::max(t.lastRuntimeEndNs, static_cast<int64_t>(a.end));
  }
  uint32_t op = sink_.pushOp(static_cast<int64_t>(a.start), static_cast<int64_t>(a.end), track, kApiCall, nameId,
                             a.correlationId);
  if (op != WaitLinker::kNone) linkApi(a.correlationId, op);
}

bool ProfileRecorder::nestedInRuntime(const CUpti_ActivityAPI& d) {
  const ThreadApi* found = threadApi_.find(d.threadId);
  if (found == nullptr) return false;
  // A thread's runtime calls do not overlap and arrive in the order they ended: the only one that
  // can hold the driver call is the first to end at or after it.
  const auto& spans = found->runtimeSpans;
  auto it = std::lower_bound(spans.begin(), spans.end(), static_cast<int64_t>(d.end),
                             [](const std::pair<int64_t, int64_t>& span, int64_t end) { return span.second < end; });
  return it != spans.end() && it->first <= static_cast<int64_t>(d.start);
}

void ProfileRecorder::tick(bool final) {
  std::lock_guard<std::mutex> lock(mutex_);
  tickLocked(final);
}

void ProfileRecorder::tickLocked(bool final) {
  tick_++;
  std::vector<PendingDriver> keep;
  for (const PendingDriver& p : pendingDriver_) {
    if (nestedInRuntime(p.api)) {
      counts_.nestedDriver++;
      continue;
    }
    const ThreadApi* t = threadApi_.find(p.api.threadId);
    bool runtimeMovedOn = t != nullptr && t->lastRuntimeEndNs >= static_cast<int64_t>(p.api.end);
    if (final || runtimeMovedOn || tick_ - p.tick > kDriverWaitTicks || pendingDriver_.size() >= kMaxPendingDriver) {
      api(p.api, CUPTI_CB_DOMAIN_DRIVER_API);
    } else {
      keep.push_back(p);
    }
  }
  pendingDriver_.swap(keep);
}

void ProfileRecorder::gpuOp(uint32_t deviceId, uint32_t contextId, uint32_t streamId, int64_t startNs, int64_t endNs,
                            uint8_t kind, uint32_t nameId, uint32_t correlationId, uint8_t flags, uint64_t bytes,
                            uint8_t memKinds, uint32_t refId) {
  if (endNs <= 0 || endNs < startNs) {
    counts_.incomplete++;  // a forced flush at exit hands over work that had not finished
    return;
  }
  uint32_t track = tracks_.stream(deviceId, contextId, streamId);
  if (track == kNoTrack) {
    counts_.dropped++;
    return;
  }
  uint32_t op = sink_.pushOp(startNs, endNs, track, kind, nameId, correlationId, flags, bytes, memKinds, refId);
  if (op != WaitLinker::kNone) linkGpu(correlationId, op);
}

}  // namespace streamscope
