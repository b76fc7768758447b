#include "cupti-session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "cupti-api.h"
#include "demangle.h"

namespace streamscope {

namespace {

// CUPTI returns a buffer only when every record in it is complete, and records are placed at
// launch: a deep queue of launched-but-unfinished kernels holds back the whole buffer. Small
// buffers (about 30 kernel records) keep live delivery flowing; CUPTI asks for more as needed.
constexpr size_t kBufferBytes = 8 << 10;

thread_local uint32_t tlsCorrelation = 0;
thread_local bool tlsCapturing = false;
thread_local std::vector<uint32_t> tlsCaptured;
std::atomic<RecordSink*> currentSink{nullptr};
std::mutex startMutex;
bool started = false;
std::string startError;
std::string notes;
CUpti_SubscriberHandle subscriber = nullptr;

// Never destroyed (like the thread below): a forked child that leaves through exit() would
// otherwise wait forever in pthread_cond_destroy for the parent's flush thread, which the child
// does not have.
std::mutex& flushMutex = *new std::mutex;
std::condition_variable& flushWake = *new std::condition_variable;
// A pointer, never destroyed at exit: a joinable std::thread destroyed by static destructors
// aborts the process, and neither a forked child (which has no such thread) nor a collector
// that turned itself off from this very thread can join it.
std::thread* flushThread = nullptr;
bool flushStop = false;

// The runtime calls whose correlation id the issue loop needs (those that make GPU records).
constexpr CUpti_CallbackId kCorrelatedCalls[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
};

// Driver launches: only collected inside beginCorrelationCapture (NCCL launches through these).
constexpr CUpti_CallbackId kDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};

bool ignoredForCorrelation(CUpti_CallbackId cbid) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020:
    case CUPTI_RUNTIME_TRACE_CBID___cudaPushCallConfiguration_v13000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaPopCallConfiguration_v13000:
      return true;
    default:
      return false;
  }
}

void CUPTIAPI onApi(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (tlsCapturing && info->callbackSite == CUPTI_API_ENTER &&
      (domain == CUPTI_CB_DOMAIN_DRIVER_API || domain == CUPTI_CB_DOMAIN_RUNTIME_API)) {
    tlsCaptured.push_back(info->correlationId);
  }
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API || ignoredForCorrelation(cbid)) {
    return;
  }
  if (info->callbackSite == CUPTI_API_ENTER && tlsCorrelation == 0) {
    tlsCorrelation = info->correlationId;
  }
}

// Buffer size and the cap on bytes CUPTI holds (0: no cap); the profiler sets both.
std::atomic<size_t> bufferBytes{kBufferBytes};
std::atomic<size_t> maxInFlightBytes{0};
std::atomic<size_t> inFlightBytes{0};
std::atomic<uint64_t> refusedBuffers{0};
std::atomic<uint64_t> bufferRequests{0};
std::atomic<ActivityHandler*> currentHandler{nullptr};
// Set once CUPTI holds our buffer callbacks: only then is there anything to flush (the
// collector's self-test runs the flush thread without CUPTI ever being loaded).
std::atomic<bool> buffersRegistered{false};
std::function<void()> afterFlush;  // set before the flush thread starts, read only by it

void CUPTIAPI onBufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
  size_t bytes = bufferBytes.load();
  size_t cap = maxInFlightBytes.load();
  *maxRecords = 0;
  bufferRequests++;
  if (cap != 0 && inFlightBytes.load() + bytes > cap) {
    // Memory stays bounded: CUPTI drops the records it cannot place and counts them.
    refusedBuffers++;
    *buffer = nullptr;
    *size = 0;
    return;
  }
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, bytes));
  *size = *buffer != nullptr ? bytes : 0;
  if (*buffer != nullptr) inFlightBytes += bytes;
}

// Returns the records handed over and adds CUPTI's dropped count for this buffer to `dropped`.
size_t handOver(ActivityHandler* handler, CUcontext context, uint32_t streamId, uint8_t* buffer,
                size_t validSize, uint64_t& droppedTotal) {
  const CuptiApi& api = cuptiApi();
  std::vector<const CUpti_Activity*> records;
  CUpti_Activity* record = nullptr;
  while (validSize > 0 && api.activityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
    records.push_back(record);
  }
  if (!records.empty()) handler->onRecords(records);
  size_t dropped = 0;
  if (api.activityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS && dropped > 0) {
    handler->onCuptiDropped(dropped);
    droppedTotal += dropped;
  }
  return records.size();
}

// Completed buffers wait here for our flush thread: CUPTI may return a buffer on whichever
// thread filled it (the program's own), and a handler's per-record work (decode, intern, link,
// encode) must never run there. Bounded by the in-flight cap: bytes count until handed over.
struct CompletedBuffer {
  CUcontext context;
  uint32_t streamId;
  uint8_t* buffer;
  size_t size;
  size_t validSize;
};
std::mutex& completedMutex = *new std::mutex;  // never destroyed: see flushMutex
std::vector<CompletedBuffer>& completed = *new std::vector<CompletedBuffer>;
std::atomic<bool> deferHandOver{true};

// What one flush handed over (the flush log's line).
struct FlushStats {
  size_t buffers = 0;
  size_t records = 0;
  uint64_t cuptiDropped = 0;
};

FlushStats handOverCompleted(ActivityHandler* handler) {
  std::vector<CompletedBuffer> ready;
  {
    std::lock_guard<std::mutex> lock(completedMutex);
    ready.swap(completed);
  }
  FlushStats stats;
  stats.buffers = ready.size();
  for (const CompletedBuffer& b : ready) {
    stats.records += handOver(handler, b.context, b.streamId, b.buffer, b.validSize, stats.cuptiDropped);
    std::free(b.buffer);
    inFlightBytes -= std::min(inFlightBytes.load(), b.size);
  }
  return stats;
}

void CUPTIAPI onBufferCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer, size_t size,
                                size_t validSize) {
  if (buffer == nullptr) return;
  ActivityHandler* handler = currentHandler.load();
  if (handler != nullptr && deferHandOver.load()) {
    std::lock_guard<std::mutex> lock(completedMutex);
    completed.push_back(CompletedBuffer{context, streamId, buffer, size, validSize});
    return;
  }
  inFlightBytes -= std::min(inFlightBytes.load(), size);
  if (handler != nullptr) {
    uint64_t dropped = 0;
    handOver(handler, context, streamId, buffer, validSize, dropped);
    std::free(buffer);
    return;
  }
  const CuptiApi& api = cuptiApi();
  RecordSink* sink = currentSink.load();
  std::vector<GpuRecord> records;
  CUpti_Activity* record = nullptr;
  while (validSize > 0 && api.activityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
    GpuRecord r;
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        r = GpuRecord{static_cast<int64_t>(k->start), static_cast<int64_t>(k->end), k->correlationId,
                      kKernel, 0, 0, 0};
        r.deviceId = static_cast<int32_t>(k->deviceId);
        if (sink != nullptr && k->name != nullptr && sink->kernelNamesWanted()) {
          r.nameId = sink->intern(demangleName(k->name));
        }
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        r = GpuRecord{static_cast<int64_t>(m->start), static_cast<int64_t>(m->end), m->correlationId,
                      copyKindOf(m->copyKind), packKinds(m->srcKind, m->dstKind), m->bytes, 0};
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
        r = GpuRecord{static_cast<int64_t>(m->start), static_cast<int64_t>(m->end), m->correlationId,
                      kCopyPtoP, packKinds(m->srcKind, m->dstKind), m->bytes, 0};
        break;
      }
      case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
        // When the stream reached the cudaEventRecord: an instant on the stream's track.
        const auto* e = reinterpret_cast<const CUpti_ActivityCudaEvent2*>(record);
        if (e->deviceTimestamp == 0) continue;
        r = GpuRecord{static_cast<int64_t>(e->deviceTimestamp), static_cast<int64_t>(e->deviceTimestamp),
                      e->correlationId, kEventRecord, 0, 0, 0};
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        r = GpuRecord{static_cast<int64_t>(m->start), static_cast<int64_t>(m->end), m->correlationId,
                      kMemset, packKinds(0, m->memoryKind), m->bytes, 0};
        break;
      }
      default:
        continue;
    }
    records.push_back(r);
  }
  if (sink != nullptr) {
    sink->pushGpu(records);
    size_t dropped = 0;
    if (api.activityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS && dropped > 0) {
      sink->addCuptiDropped(dropped);
    }
  }
  std::free(buffer);
}

// Diagnosis of collection overhead only (scripts/gpu/device-main.ts `overhead`): parts of the
// collection to leave off, e.g. STREAMSCOPE_CUPTI_OFF=memcpy,flush. Unset in normal runs.
bool diagnosticOff(const char* part) {
  const char* off = std::getenv("STREAMSCOPE_CUPTI_OFF");
  return off != nullptr && std::strstr(off, part) != nullptr;
}

std::string check(CUptiResult r, const char* what) {
  return r == CUPTI_SUCCESS ? "" : std::string(what) + " failed: " + cuptiApi().resultName(r);
}

void stopFlushThread() {
  {
    std::lock_guard<std::mutex> lock(flushMutex);
    flushStop = true;
  }
  flushWake.notify_all();
  if (flushThread != nullptr) {
    flushThread->join();
    delete flushThread;
    flushThread = nullptr;
  }
}

}  // namespace

uint8_t copyKindOf(uint8_t cuptiCopyKind) {
  switch (cuptiCopyKind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return kCopyHtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return kCopyDtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return kCopyHtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return kCopyPtoP;
    default:
      return kCopyDtoD;
  }
}

uint8_t packKinds(unsigned src, unsigned dst) {
  return static_cast<uint8_t>((src & 0x0f) | ((dst & 0x0f) << 4));
}

void resetCorrelation() { tlsCorrelation = 0; }

void beginCorrelationCapture() {
  tlsCaptured.clear();
  tlsCapturing = true;
}

std::vector<uint32_t> endCorrelationCapture() {
  tlsCapturing = false;
  std::vector<uint32_t> out;
  out.swap(tlsCaptured);
  return out;
}
uint32_t lastCorrelation() { return tlsCorrelation; }

std::string cuptiNotes() {
  std::lock_guard<std::mutex> lock(startMutex);
  return notes;
}

uint32_t cuptiVersion() {
  const CuptiApi& api = cuptiApi();
  uint32_t version = 0;
  if (api.loaded()) {
    api.getVersion(&version);
  }
  return version;
}

namespace {

bool eventActivityOn = false;

// Event records as GPU instants (what stream waits are derived from), and the synchronization
// records CUPTI links them to. They cost every run about 1% of a short pipeline's makespan on an
// H100 (scripts/gpu/device-main.ts overhead), so only plans with events turn them on.
void enableEventActivity(const CuptiApi& api) {
  if (eventActivityOn || diagnosticOff("events")) return;
  eventActivityOn = true;
  // Without device timestamps event records carry no GPU time.
  std::string timestamps = api.activityEnableCudaEventDeviceTimestamps == nullptr
                               ? "not in this CUPTI"
                               : check(api.activityEnableCudaEventDeviceTimestamps(1), "device timestamps");
  std::string kind = timestamps.empty() ? check(api.activityEnable(CUPTI_ACTIVITY_KIND_CUDA_EVENT), "enable") : "";
  if (kind.empty()) api.activityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  notes = "cuda-event activity: " + (timestamps.empty() && kind.empty() ? std::string("on") : timestamps + kind);
}

}  // namespace

std::string cuptiStart(bool eventRecords) {
  std::lock_guard<std::mutex> lock(startMutex);
  if (started) {
    if (startError.empty() && eventRecords) enableEventActivity(cuptiApi());
    return startError;
  }
  started = true;
  const CuptiApi& api = cuptiApi();
  if (!api.loaded()) {
    startError = api.error;
    return startError;
  }
  std::string error = check(api.activityRegisterCallbacks(onBufferRequested, onBufferCompleted),
                            "cuptiActivityRegisterCallbacks");
  if (error.empty()) buffersRegistered.store(true);
  const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                      CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET};
  for (CUpti_ActivityKind kind : kinds) {
    bool off = kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ? diagnosticOff("kernel") : diagnosticOff("memcpy");
    if (error.empty() && !off) {
      error = check(api.activityEnable(kind), "cuptiActivityEnable");
    }
  }
  if (error.empty() && eventRecords) {
    enableEventActivity(api);
  }
  if (error.empty() && !diagnosticOff("callbacks")) {
    // A second subscriber (Nsight Systems profiling this process) makes this fail: we then fall
    // back to event timing instead of crashing.
    error = check(api.subscribe(&subscriber, onApi, nullptr), "cuptiSubscribe");
  }
  if (error.empty() && subscriber != nullptr) {
    // Only the calls that issue GPU work: every callback costs time on the issuing thread.
    for (CUpti_CallbackId cbid : kCorrelatedCalls) {
      if (error.empty()) {
        error = check(api.enableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid), "cuptiEnableCallback");
      }
    }
    for (CUpti_CallbackId cbid : kDriverLaunches) {
      if (error.empty()) {
        error = check(api.enableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid), "cuptiEnableCallback");
      }
    }
  }
  if (!error.empty()) {
    for (CUpti_ActivityKind kind : kinds) {
      api.activityDisable(kind);
    }
    api.activityDisable(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
    api.activityDisable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    eventActivityOn = false;
  }
  startError = error;
  return startError;
}

void cuptiAttach(RecordSink* sink, int flushIntervalMs) {
  currentSink.store(sink);
  stopFlushThread();
  flushStop = false;
  if (diagnosticOff("flush")) return;
  int periodMs = flushIntervalMs > 0 ? flushIntervalMs : 10;
  // Diagnosis only (STREAMSCOPE_PROFILE_FLUSH_LOG=1): one stderr line per flush that did work.
  const bool log = std::getenv("STREAMSCOPE_PROFILE_FLUSH_LOG") != nullptr;
  flushThread = new std::thread([periodMs, log] {
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
    const Clock::time_point begin = Clock::now();
    uint64_t flushes = 0;
    std::unique_lock<std::mutex> lock(flushMutex);
    while (!flushStop) {
      flushWake.wait_for(lock, std::chrono::milliseconds(periodMs));
      if (flushStop) {
        break;
      }
      // Never call into CUPTI holding a lock its callbacks might want (they take the sink's).
      lock.unlock();
      const Clock::time_point t0 = Clock::now();
      if (buffersRegistered.load()) cuptiApi().activityFlushAll(0);
      const Clock::time_point t1 = Clock::now();
      ActivityHandler* handler = currentHandler.load();
      FlushStats stats;
      if (handler != nullptr) stats = handOverCompleted(handler);
      const Clock::time_point t2 = Clock::now();
      if (afterFlush) afterFlush();
      const Clock::time_point t3 = Clock::now();
      flushes++;
      if (log && (stats.buffers > 0 || stats.cuptiDropped > 0)) {
        std::fprintf(stderr,
                     "flush %llu at %.0f ms: cuptiFlush %.2f ms, %zu buffers %zu records in %.2f ms, "
                     "afterFlush %.2f ms, in flight %zu KiB, requests %llu refused %llu, cupti dropped %llu\n",
                     static_cast<unsigned long long>(flushes), ms(t0 - begin), ms(t1 - t0), stats.buffers,
                     stats.records, ms(t2 - t1), ms(t3 - t2), inFlightBytes.load() >> 10,
                     static_cast<unsigned long long>(bufferRequests.load()),
                     static_cast<unsigned long long>(refusedBuffers.load()),
                     static_cast<unsigned long long>(stats.cuptiDropped));
      }
      lock.lock();
    }
  });
}

void cuptiFinish() {
  stopFlushThread();
  cuptiApi().activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  currentSink.store(nullptr);
}

void cuptiAttachHandler(ActivityHandler* handler, int flushIntervalMs, std::function<void()> after) {
  stopFlushThread();
  currentHandler.store(handler);
  afterFlush = std::move(after);
  cuptiAttach(nullptr, flushIntervalMs);
}

void cuptiFinishProfile() {
  stopFlushThread();
  if (buffersRegistered.load()) cuptiApi().activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  ActivityHandler* handler = currentHandler.load();
  if (handler != nullptr) handOverCompleted(handler);
}

void cuptiDeferHandOver(bool defer) { deferHandOver.store(defer); }

void cuptiSetBuffers(size_t bytesPerBuffer, size_t maxBytesInFlight) {
  bufferBytes.store(bytesPerBuffer);
  maxInFlightBytes.store(maxBytesInFlight);
}

uint64_t cuptiRefusedBuffers() { return refusedBuffers.load(); }

std::string cuptiRegisterBuffers() {
  std::string error = check(cuptiApi().activityRegisterCallbacks(onBufferRequested, onBufferCompleted),
                            "cuptiActivityRegisterCallbacks");
  if (error.empty()) buffersRegistered.store(true);
  return error;
}

}  // namespace streamscope
