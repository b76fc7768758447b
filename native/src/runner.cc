#include "runner.h"

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "check.h"
#include "clock.h"
#include "cupti-session.h"
#include "kernels.h"

namespace streamscope {

namespace {

thread_local int currentDevice = -1;

// Trace MemKind numbering (packages/trace/src/op-kind.ts), which CUPTI's memory kinds share.
constexpr uint8_t kMemPageable = 1;
constexpr uint8_t kMemPinned = 2;
constexpr uint8_t kMemDevice = 3;

void spinUntil(int64_t deadlineNs) {
  while (hostNowNs() < deadlineNs) {
  }
}

}  // namespace

Runner::Runner(Plan plan, RunOptions options) : plan_(std::move(plan)), options_(options) {
  if (options_.timing == TimingMode::Cupti) {
    std::string why = cuptiStart();
    if (!why.empty()) {
      if (!options_.timingAuto) {
        SS_FAIL("CUPTI unavailable: " + why);
      }
      options_.timing = TimingMode::Events;
      timingNote_ = "CUPTI unavailable (" + why + "): timed with cudaEvent pairs";
    }
  }
  useCuptiClock(options_.timing == TimingMode::Cupti);
  setup();
  sink_ = std::make_unique<RecordSink>(hostNowNs(), options_.firstStringId, options_.maxQueuedRecords);
}

Runner::~Runner() {
  cancel();
  if (controller_.joinable()) {
    controller_.join();
  }
  // Best effort: after a sticky error these fail, and the child process exits anyway.
  for (size_t i = 0; i < streams_.size(); i++) {
    if (plan_.streams[i].type == StreamType::Blocking || plan_.streams[i].type == StreamType::NonBlocking) {
      cudaStreamDestroy(streams_[i]);
    }
  }
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
  for (cudaEvent_t e : baseEvents_) cudaEventDestroy(e);
  for (cudaGraphExec_t g : graphs_) cudaGraphExecDestroy(g);
  for (cudaGraph_t g : graphTemplates_) cudaGraphDestroy(g);
  for (size_t i = 0; i < buffers_.size(); i++) {
    if (buffers_[i] == nullptr) continue;
    switch (plan_.buffers[i].kind) {
      case BufferKind::Device: cudaFree(buffers_[i]); break;
      case BufferKind::Pinned: cudaFreeHost(buffers_[i]); break;
      case BufferKind::Pageable: std::free(buffers_[i]); break;
      case BufferKind::StreamOrdered: cudaFree(buffers_[i]); break;
    }
  }
}

void Runner::selectDevice(int device) {
  if (currentDevice != device) {
    SS_CUDA_CHECK(cudaSetDevice(device));
    currentDevice = device;
  }
}

void Runner::setup() {
  currentDevice = -1;
  for (int d : plan_.devices) {
    selectDevice(d);
    SS_CUDA_CHECK(cudaFree(nullptr));  // creates the primary context outside the timed window
  }
  for (int d : plan_.devices) {
    for (int peer : plan_.devices) {
      int can = 0;
      if (peer == d || cudaDeviceCanAccessPeer(&can, d, peer) != cudaSuccess || can == 0) continue;
      selectDevice(d);
      cudaError_t st = cudaDeviceEnablePeerAccess(peer, 0);
      if (st != cudaSuccess && st != cudaErrorPeerAccessAlreadyEnabled) SS_CUDA_CHECK(st);
      cudaGetLastError();
    }
  }
  for (const PlanStream& s : plan_.streams) {
    selectDevice(s.device);
    cudaStream_t handle = nullptr;
    switch (s.type) {
      // The explicit handles, never 0: the per-TU default-stream compile flag then cannot matter.
      case StreamType::Legacy: handle = cudaStreamLegacy; break;
      case StreamType::PerThread: handle = cudaStreamPerThread; break;
      case StreamType::Blocking:
        SS_CUDA_CHECK(cudaStreamCreateWithPriority(&handle, cudaStreamDefault, s.priority));
        break;
      case StreamType::NonBlocking:
        SS_CUDA_CHECK(cudaStreamCreateWithPriority(&handle, cudaStreamNonBlocking, s.priority));
        break;
    }
    streams_.push_back(handle);
  }
  for (const PlanEvent& e : plan_.events) {
    selectDevice(e.device);
    cudaEvent_t handle = nullptr;
    SS_CUDA_CHECK(cudaEventCreateWithFlags(&handle, cudaEventDefault));
    events_.push_back(handle);
  }
  recordCounts_.assign(plan_.events.size(), 0);
  for (const PlanBuffer& b : plan_.buffers) {
    void* p = nullptr;
    size_t bytes = b.bytes > 0 ? b.bytes : 1;
    selectDevice(b.device);
    switch (b.kind) {
      case BufferKind::Device:
        SS_CUDA_CHECK(cudaMalloc(&p, bytes));
        SS_CUDA_CHECK(cudaMemset(p, 0, bytes));
        break;
      case BufferKind::Pinned:
        SS_CUDA_CHECK(cudaMallocHost(&p, bytes));
        std::memset(p, 0, bytes);
        break;
      case BufferKind::Pageable:
        p = std::malloc(bytes);
        if (p == nullptr) SS_FAIL("cannot allocate " + std::to_string(bytes) + " pageable bytes");
        std::memset(p, 0, bytes);  // touch every page now, not inside the timed copy
        break;
      case BufferKind::StreamOrdered:
        break;  // allocated by a MallocAsync op
    }
    buffers_.push_back(p);
  }
  captureGraphs();
  for (int d : plan_.devices) {
    selectDevice(d);
    SS_CUDA_CHECK(cudaDeviceSynchronize());
    if (options_.timing == TimingMode::Events) {
      cudaEvent_t base = nullptr;
      SS_CUDA_CHECK(cudaEventCreate(&base));
      SS_CUDA_CHECK(cudaEventRecord(base, cudaStreamLegacy));
      SS_CUDA_CHECK(cudaEventSynchronize(base));
      baseEvents_.push_back(base);
      baseHostNs_.push_back(hostNowNs());
    }
  }
}

void Runner::captureGraphs() {
  for (const PlanGraph& g : plan_.graphs) {
    const PlanStream& s = plan_.streams.at(g.captureStream);
    selectDevice(s.device);
    cudaStream_t stream = streams_.at(g.captureStream);
    SS_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (const PlanOp& op : g.ops) {
      issue(op, 0, true);
    }
    cudaGraph_t graph = nullptr;
    SS_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    graphTemplates_.push_back(graph);
    cudaGraphExec_t exec = nullptr;
    SS_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    graphs_.push_back(exec);
  }
}

void Runner::start(std::function<void()> doorbell) {
  doorbell_ = doorbell;
  sink_->setDoorbell(std::move(doorbell));
  if (options_.timing == TimingMode::Cupti) {
    cuptiAttach(sink_.get(), options_.flushIntervalMs);
  }
  if (options_.timing == TimingMode::Events) {
    completion_ = std::thread([this] { completeEvents(); });
  }
  controller_ = std::thread([this] { control(); });
}

void Runner::control() {
  std::vector<std::thread> threads;
  for (size_t t = 0; t < plan_.threads.size(); t++) {
    threads.emplace_back([this, t] { issueAll(t); });
  }
  for (std::thread& t : threads) t.join();
  currentDevice = -1;
  for (int d : plan_.devices) {
    cudaError_t st = cudaSetDevice(d);
    if (st == cudaSuccess) st = cudaDeviceSynchronize();
    if (st != cudaSuccess) fail(describeCudaError(st, "cudaDeviceSynchronize", __FILE__, __LINE__));
  }
  makespanNs_.store(hostNowNs() - sink_->originNs());
  if (options_.timing == TimingMode::Cupti) {
    cuptiFinish();
  }
  if (completion_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(pairMutex_);
      pairsClosed_ = true;
    }
    pairWake_.notify_all();
    completion_.join();
  }
  RunState expected = RunState::Running;
  state_.compare_exchange_strong(expected, cancelled_.load() ? RunState::Cancelled : RunState::Finished);
  if (doorbell_) doorbell_();  // always: JS learns the run ended even with nothing left to drain
}

void Runner::cancel() {
  cancelled_.store(true);
  recordWake_.notify_all();
}

void Runner::fail(const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(errorMutex_);
    if (error_.empty()) error_ = reason;
  }
  RunState expected = RunState::Running;
  state_.compare_exchange_strong(expected, RunState::Failed);
  cancel();
}

std::string Runner::error() {
  std::lock_guard<std::mutex> lock(errorMutex_);
  return error_;
}

void Runner::issueAll(size_t threadIndex) {
  currentDevice = -1;
  const PlanThread& thread = plan_.threads[threadIndex];
  for (const PlanOp& op : thread.ops) {
    if (cancelled_.load()) return;
    try {
      issue(op, thread.track, false);
    } catch (const NativeError& e) {
      fail(e.what());
      return;
    }
  }
}

uint8_t Runner::copyKind(int dst, int src, uint8_t* memKinds) const {
  auto memKind = [this](int buffer) -> uint8_t {
    switch (plan_.buffers.at(buffer).kind) {
      case BufferKind::Pinned: return kMemPinned;
      case BufferKind::Pageable: return kMemPageable;
      default: return kMemDevice;
    }
  };
  uint8_t s = memKind(src);
  uint8_t d = memKind(dst);
  *memKinds = static_cast<uint8_t>(s | (d << 4));
  bool hostSrc = s != kMemDevice;
  bool hostDst = d != kMemDevice;
  if (hostSrc && hostDst) return kCopyHtoH;
  if (hostSrc) return kCopyHtoD;
  if (hostDst) return kCopyDtoH;
  return plan_.buffers.at(src).device == plan_.buffers.at(dst).device ? kCopyDtoD : kCopyPtoP;
}

template <typename Fn>
void Runner::call(const char* api, uint8_t hostKind, const PlanOp& op, uint32_t hostTrack,
                  bool capturing, bool gpuWork, uint8_t gpuKind, uint64_t bytes, uint8_t memKinds, Fn fn) {
  if (capturing) {
    cudaError_t st = fn();
    if (st != cudaSuccess) throw NativeError(describeCudaError(st, api, __FILE__, __LINE__));
    return;
  }
  const PlanStream& ps = plan_.streams.at(op.stream);
  cudaStream_t stream = streams_.at(op.stream);
  bool pair = gpuWork && options_.timing == TimingMode::Events;
  PendingPair pending{};
  if (pair) {
    SS_CUDA_CHECK(cudaEventCreate(&pending.start));
    SS_CUDA_CHECK(cudaEventCreate(&pending.end));
    SS_CUDA_CHECK(cudaEventRecord(pending.start, stream));
  }
  resetCorrelation();
  int64_t t0 = hostNowNs();
  cudaError_t st = fn();
  int64_t t1 = hostNowNs();
  uint32_t correlation = lastCorrelation();
  if (st != cudaSuccess) throw NativeError(describeCudaError(st, api, __FILE__, __LINE__));
  bool sync = hostKind == kStreamSync || hostKind == kEventSync || hostKind == kDeviceSync;
  if (gpuWork && options_.timing == TimingMode::Cupti) {
    sink_->issued(correlation, IssuedOp{ps.track, op.nameId, op.refId, 0, op.code == OpCode::GraphLaunch});
  }
  if (pair) {
    SS_CUDA_CHECK(cudaEventRecord(pending.end, stream));
    pending.device = ps.device;
    pending.op.track = ps.track;
    pending.op.kind = gpuKind;
    pending.op.nameId = op.nameId;
    pending.op.bytes = bytes;
    pending.op.memKinds = memKinds;
    pending.op.refId = gpuKind == kKernel ? op.refId : kNoRef;
    {
      std::lock_guard<std::mutex> lock(pairMutex_);
      pairs_.push_back(pending);
    }
    pairWake_.notify_all();
  }
  sink_->pushOp(t0, t1, hostTrack, hostKind, sink_->intern(api), correlation,
                sync ? static_cast<uint8_t>(kFlagSync) : 0);
}

void Runner::issue(const PlanOp& op, uint32_t hostTrack, bool capturing) {
  const PlanStream& ps = plan_.streams.at(op.stream);
  selectDevice(ps.device);
  cudaStream_t s = streams_.at(op.stream);
  const int64_t* a = op.a;
  LaunchShape shape{static_cast<unsigned>(a[1]), static_cast<unsigned>(a[2]), static_cast<unsigned>(a[3])};
  auto syncOn = [s, &ps](cudaError_t st) {
    // cudaMemcpy/cudaMemset on a stream other than the legacy one: the async call, then a wait,
    // which is what the synchronous API does on the per-thread default stream.
    return st == cudaSuccess && ps.type != StreamType::Legacy ? cudaStreamSynchronize(s) : st;
  };
  switch (op.code) {
    case OpCode::KernelTimed:
      call("cudaLaunchKernel", kApiCall, op, hostTrack, capturing, true, kKernel, 0, 0,
           [&] { return launchTimedSpin(shape, static_cast<uint64_t>(a[0]), s); });
      break;
    case OpCode::KernelWork:
      call("cudaLaunchKernel", kApiCall, op, hostTrack, capturing, true, kKernel, 0, 0,
           [&] { return launchFixedWork(shape, static_cast<uint64_t>(a[0]), s); });
      break;
    case OpCode::Fault:
      call("cudaLaunchKernel", kApiCall, op, hostTrack, capturing, true, kKernel, 0, 0,
           [&] { return launchFault(s); });
      break;
    case OpCode::Copy:
    case OpCode::PeerCopy: {
      int dst = static_cast<int>(a[0]);
      int src = static_cast<int>(a[1]);
      size_t bytes = static_cast<size_t>(a[2]);
      uint8_t memKinds = 0;
      uint8_t kind = copyKind(dst, src, &memKinds);
      void* dp = buffers_.at(dst);
      void* sp = buffers_.at(src);
      if (op.code == OpCode::PeerCopy) {
        int dd = plan_.buffers[dst].device;
        int sd = plan_.buffers[src].device;
        call("cudaMemcpyPeerAsync", kApiCall, op, hostTrack, capturing, true, kCopyPtoP, bytes, memKinds,
             [&] { return cudaMemcpyPeerAsync(dp, dd, sp, sd, bytes, s); });
      } else if (a[3] != 0) {
        call("cudaMemcpyAsync", kApiCall, op, hostTrack, capturing, true, kind, bytes, memKinds,
             [&] { return cudaMemcpyAsync(dp, sp, bytes, cudaMemcpyDefault, s); });
      } else {
        call("cudaMemcpy", kApiCall, op, hostTrack, capturing, true, kind, bytes, memKinds, [&] {
          return ps.type == StreamType::Legacy ? cudaMemcpy(dp, sp, bytes, cudaMemcpyDefault)
                                               : syncOn(cudaMemcpyAsync(dp, sp, bytes, cudaMemcpyDefault, s));
        });
      }
      break;
    }
    case OpCode::Memset: {
      void* p = buffers_.at(static_cast<size_t>(a[0]));
      size_t bytes = static_cast<size_t>(a[1]);
      int value = static_cast<int>(a[3]);
      uint8_t memKinds = static_cast<uint8_t>(kMemDevice << 4);
      if (a[2] != 0) {
        call("cudaMemsetAsync", kApiCall, op, hostTrack, capturing, true, kMemset, bytes, memKinds,
             [&] { return cudaMemsetAsync(p, value, bytes, s); });
      } else {
        call("cudaMemset", kApiCall, op, hostTrack, capturing, true, kMemset, bytes, memKinds, [&] {
          return ps.type == StreamType::Legacy ? cudaMemset(p, value, bytes)
                                               : syncOn(cudaMemsetAsync(p, value, bytes, s));
        });
      }
      break;
    }
    case OpCode::EventRecord: {
      size_t e = static_cast<size_t>(a[0]);
      call("cudaEventRecord", kApiCall, op, hostTrack, capturing, false, 0, 0, 0,
           [&] { return cudaEventRecord(events_.at(e), s); });
      if (!capturing) {
        {
          std::lock_guard<std::mutex> lock(recordMutex_);
          recordCounts_[e]++;
        }
        recordWake_.notify_all();
      }
      break;
    }
    case OpCode::StreamWait:
      call("cudaStreamWaitEvent", kApiCall, op, hostTrack, capturing, false, 0, 0, 0,
           [&] { return cudaStreamWaitEvent(s, events_.at(static_cast<size_t>(a[0])), 0); });
      break;
    case OpCode::StreamSync:
      call("cudaStreamSynchronize", kStreamSync, op, hostTrack, capturing, false, 0, 0, 0,
           [&] { return cudaStreamSynchronize(s); });
      break;
    case OpCode::EventSync:
      call("cudaEventSynchronize", kEventSync, op, hostTrack, capturing, false, 0, 0, 0,
           [&] { return cudaEventSynchronize(events_.at(static_cast<size_t>(a[0]))); });
      break;
    case OpCode::DeviceSync:
      selectDevice(static_cast<int>(a[0]));
      call("cudaDeviceSynchronize", kDeviceSync, op, hostTrack, capturing, false, 0, 0, 0,
           [&] { return cudaDeviceSynchronize(); });
      break;
    case OpCode::HostFunc: {
      hostFuncs_.push_back(std::make_unique<HostFuncData>(HostFuncData{this, ps.track, op.nameId, a[0]}));
      HostFuncData* data = hostFuncs_.back().get();
      call("cudaLaunchHostFunc", kApiCall, op, hostTrack, capturing, false, 0, 0, 0,
           [&] { return cudaLaunchHostFunc(s, onHostFunc, data); });
      break;
    }
    case OpCode::HostWork: {
      int64_t t0 = hostNowNs();
      spinUntil(t0 + a[0]);
      sink_->pushOp(t0, hostNowNs(), hostTrack, kHostWork, op.nameId);
      break;
    }
    case OpCode::WaitRecorded: {
      size_t e = static_cast<size_t>(a[0]);
      std::unique_lock<std::mutex> lock(recordMutex_);
      recordWake_.wait(lock, [&] { return recordCounts_.at(e) >= a[1] || cancelled_.load(); });
      break;
    }
    case OpCode::GraphLaunch: {
      cudaGraphExec_t g = graphs_.at(static_cast<size_t>(a[0]));
      call("cudaGraphLaunch", kApiCall, op, hostTrack, capturing, true, kGraphLaunch, 0, 0,
           [&] { return cudaGraphLaunch(g, s); });
      break;
    }
    case OpCode::MallocAsync: {
      size_t b = static_cast<size_t>(a[0]);
      size_t bytes = plan_.buffers.at(b).bytes;
      call("cudaMallocAsync", kApiCall, op, hostTrack, capturing, false, 0, 0, 0,
           [&] { return cudaMallocAsync(&buffers_.at(b), bytes, s); });
      break;
    }
    case OpCode::FreeAsync: {
      size_t b = static_cast<size_t>(a[0]);
      void* p = buffers_.at(b);
      buffers_.at(b) = nullptr;
      call("cudaFreeAsync", kApiCall, op, hostTrack, capturing, false, 0, 0, 0,
           [&] { return cudaFreeAsync(p, s); });
      break;
    }
  }
}

void CUDART_CB Runner::onHostFunc(void* raw) {
  // Runs on a CUDA-internal thread: no CUDA calls here, only our clock and the sink.
  auto* data = static_cast<HostFuncData*>(raw);
  int64_t t0 = hostNowNs();
  spinUntil(t0 + data->durNs);
  data->runner->sink_->pushOp(t0, hostNowNs(), data->track, kHostFunc, data->nameId);
}

void Runner::completeEvents() {
  for (;;) {
    PendingPair p{};
    {
      std::unique_lock<std::mutex> lock(pairMutex_);
      pairWake_.wait(lock, [this] { return !pairs_.empty() || pairsClosed_; });
      if (pairs_.empty()) return;
      p = pairs_.front();
      pairs_.pop_front();
    }
    size_t d = 0;
    while (d < plan_.devices.size() && plan_.devices[d] != p.device) d++;
    float startMs = 0;
    float endMs = 0;
    if (cudaEventSynchronize(p.end) == cudaSuccess &&
        cudaEventElapsedTime(&startMs, baseEvents_.at(d), p.start) == cudaSuccess &&
        cudaEventElapsedTime(&endMs, baseEvents_.at(d), p.end) == cudaSuccess) {
      int64_t base = baseHostNs_.at(d);
      sink_->pushOp(base + static_cast<int64_t>(startMs * 1e6), base + static_cast<int64_t>(endMs * 1e6),
                    p.op.track, p.op.kind, p.op.nameId, 0, kFlagEventTimed, p.op.bytes, p.op.memKinds,
                    p.op.refId);
    }
    cudaEventDestroy(p.start);
    cudaEventDestroy(p.end);
  }
}

}  // namespace streamscope
