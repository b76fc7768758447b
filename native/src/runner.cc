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

/** Whether any host thread or graph records an event (so CUPTI's event records are wanted). */
bool recordsEvents(const Plan& plan) {
  auto any = [](const std::vector<PlanOp>& ops) {
    for (const PlanOp& op : ops) {
      if (op.code == OpCode::EventRecord) return true;
    }
    return false;
  };
  for (const PlanThread& t : plan.threads) {
    if (any(t.ops)) return true;
  }
  for (const PlanGraph& g : plan.graphs) {
    if (any(g.ops)) return true;
  }
  return false;
}

}  // namespace

Runner::Runner(Plan plan, RunOptions options) : plan_(std::move(plan)), options_(options) {
  if (options_.timing == TimingMode::Cupti) {
    std::string why = cuptiStart(recordsEvents(plan_));
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
  // Issue threads start now and warm up (thread state, per-thread default streams) before the
  // run's origin; they wait at the gate until start().
  for (size_t t = 0; t < plan_.threads.size(); t++) {
    issueThreads_.emplace_back([this, t] { threadMain(t); });
  }
  {
    std::unique_lock<std::mutex> lock(gateMutex_);
    gateWake_.wait(lock, [this] { return warmed_ == plan_.threads.size(); });
  }
  std::string warmError = error();
  if (!warmError.empty()) {
    openGate();
    for (std::thread& t : issueThreads_) t.join();
    SS_FAIL(warmError);
  }
  sink_ = std::make_unique<RecordSink>(hostNowNs(), options_.firstStringId, options_.maxQueuedRecords);
  if (!plan_.collectives.empty()) {
    // NCCL's kernels keep the names CUPTI gives; its copies read like the plan's own copies.
    sink_->wantKernelNames(true);
    sink_->libraryOpNames({sink_->intern("memcpy DtoD"), sink_->intern("memcpy PtoP"), sink_->intern("memset")});
  }
}

void Runner::openGate() {
  {
    std::lock_guard<std::mutex> lock(gateMutex_);
    gateOpen_ = true;
  }
  gateWake_.notify_all();
}

void Runner::threadMain(size_t t) {
  currentDevice = -1;
  try {
    const PlanThread& thread = plan_.threads[t];
    int device = plan_.devices.at(0);
    if (!thread.ops.empty()) device = plan_.streams.at(thread.ops.front().stream).device;
    selectDevice(device);
    SS_CUDA_CHECK(cudaStreamQuery(cudaStreamPerThread));  // creates this thread's default stream
  } catch (const NativeError& e) {
    fail(e.what());
  }
  {
    std::unique_lock<std::mutex> lock(gateMutex_);
    warmed_++;
    gateWake_.notify_all();
    gateWake_.wait(lock, [this] { return gateOpen_; });
  }
  if (!cancelled_.load()) issueAll(t);
}

namespace {
void CUDART_CB noopHostFunc(void*) {}
}  // namespace

void Runner::warmDevice(int device) {
  // First use of each kernel (lazy module loading), copy path, pool and host-function thread
  // costs hundreds of microseconds: pay them here, outside the timed window.
  selectDevice(device);
  void* d = nullptr;
  void* h = nullptr;
  SS_CUDA_CHECK(cudaMalloc(&d, 1 << 16));
  SS_CUDA_CHECK(cudaMallocHost(&h, 1 << 16));
  LaunchShape tiny;
  SS_CUDA_CHECK(launchTimedSpin(tiny, 0, cudaStreamLegacy));
  SS_CUDA_CHECK(launchFixedWork(tiny, 1, cudaStreamLegacy));
  SS_CUDA_CHECK(cudaMemsetAsync(d, 0, 1 << 12, cudaStreamLegacy));
  SS_CUDA_CHECK(cudaMemcpyAsync(d, h, 1 << 12, cudaMemcpyDefault, cudaStreamLegacy));
  SS_CUDA_CHECK(cudaMemcpyAsync(h, d, 1 << 12, cudaMemcpyDefault, cudaStreamLegacy));
  SS_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(d) + (1 << 12), d, 1 << 12, cudaMemcpyDefault, cudaStreamLegacy));
  void* pooled = nullptr;
  if (cudaMallocAsync(&pooled, 1 << 12, cudaStreamLegacy) == cudaSuccess) {
    cudaFreeAsync(pooled, cudaStreamLegacy);
  }
  cudaGetLastError();  // a device without memory pools is not an error here
  SS_CUDA_CHECK(cudaLaunchHostFunc(cudaStreamLegacy, noopHostFunc, nullptr));
  SS_CUDA_CHECK(cudaDeviceSynchronize());
  cudaFree(d);
  cudaFreeHost(h);
}

Runner::~Runner() {
  cancel();
  if (controller_.joinable()) {
    controller_.join();
  }
  openGate();  // never started: let the waiting issue threads see the cancel and leave
  for (std::thread& t : issueThreads_) {
    if (t.joinable()) t.join();
  }
  teardown();
}

void Runner::teardown() {
  std::lock_guard<std::mutex> lock(teardownMutex_);
  // Best effort: after a sticky error these fail, and the child process exits anyway.
  teardownComms();
  for (size_t i = 0; i < streams_.size(); i++) {
    if (plan_.streams[i].type == StreamType::Blocking || plan_.streams[i].type == StreamType::NonBlocking) {
      cudaStreamDestroy(streams_[i]);
    }
  }
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
  for (cudaEvent_t e : baseEvents_) cudaEventDestroy(e);
  for (cudaGraphExec_t g : graphs_) {
    if (g != nullptr) cudaGraphExecDestroy(g);
  }
  for (cudaGraph_t g : graphTemplates_) {
    if (g != nullptr) cudaGraphDestroy(g);
  }
  for (size_t i = 0; i < buffers_.size(); i++) {
    if (buffers_[i] == nullptr) continue;
    switch (plan_.buffers[i].kind) {
      case BufferKind::Device: cudaFree(buffers_[i]); break;
      case BufferKind::Pinned: cudaFreeHost(buffers_[i]); break;
      case BufferKind::Pageable: std::free(buffers_[i]); break;
      case BufferKind::StreamOrdered: cudaFree(buffers_[i]); break;
    }
  }
  streams_.clear();
  events_.clear();
  baseEvents_.clear();
  graphs_.clear();
  graphTemplates_.clear();
  buffers_.clear();
}

void Runner::forgetDevice() { currentDevice = -1; }

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
    if (b.deferred) {
      buffers_.push_back(nullptr);
      continue;
    }
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
        std::memset(p, 0, bytes);
        // Touch every page now, not inside the timed copy. A compiler may turn malloc +
        // memset(0) into calloc, which maps fresh pages lazily: the first pageable copy then paid
        // the page faults (96 ms instead of 20 for 64 MiB each way on an H100). One volatile
        // write per page cannot be elided.
        for (size_t at = 0; at < bytes; at += 4096) static_cast<volatile unsigned char*>(p)[at] = 0;
        break;
      case BufferKind::StreamOrdered:
        break;  // allocated by a MallocAsync op
    }
    buffers_.push_back(p);
  }
  for (int d : plan_.devices) warmDevice(d);
  setupComms();
  graphs_.assign(plan_.graphs.size(), nullptr);
  graphTemplates_.assign(plan_.graphs.size(), nullptr);
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

cudaError_t Runner::captureGraph(size_t index) {
  const PlanGraph& g = plan_.graphs.at(index);
  cudaStream_t stream = streams_.at(g.captureStream);
  cudaError_t st = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  if (st != cudaSuccess) return st;
  for (const PlanOp& op : g.ops) {
    issue(op, 0, true);
  }
  cudaGraph_t graph = nullptr;
  st = cudaStreamEndCapture(stream, &graph);
  if (st != cudaSuccess) return st;
  if (graphTemplates_[index] != nullptr) cudaGraphDestroy(graphTemplates_[index]);
  if (graphs_[index] != nullptr) cudaGraphExecDestroy(graphs_[index]);
  graphTemplates_[index] = graph;
  st = cudaGraphInstantiate(&graphs_[index], graph, 0);
  if (st == cudaSuccess && sink_) {
    std::vector<std::pair<uint32_t, uint32_t>> nodes;
    for (const PlanOp& op : g.ops) {
      if (op.code != OpCode::HostFunc) nodes.emplace_back(op.nameId, op.refId);  // host nodes make no record
    }
    sink_->graphNodes(index, std::move(nodes));
  }
  return st;
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
  // The run starts when issue can begin: attaching the collector is setup, not part of it.
  sink_->setOrigin(hostNowNs());
  controller_ = std::thread([this] { control(); });
}

void Runner::control() {
  openGate();
  for (std::thread& t : issueThreads_) t.join();
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
  // The GPU is idle and every pair is read: free the run's memory now, not when the next run
  // replaces this one (or never, when the process exits first).
  teardown();
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
  const PlanThread& thread = plan_.threads[threadIndex];
  std::vector<std::pair<int64_t, uint32_t>> ranges;  // open ranges: start, name
  for (const PlanOp& op : thread.ops) {
    if (cancelled_.load()) return;
    if (op.code == OpCode::RangePush) {
      ranges.emplace_back(hostNowNs(), op.nameId);
      continue;
    }
    if (op.code == OpCode::RangePop) {
      if (!ranges.empty()) {
        sink_->pushRange(ranges.back().first, hostNowNs(), thread.track, ranges.back().second,
                         static_cast<uint8_t>(ranges.size() - 1));
        ranges.pop_back();
      }
      continue;
    }
    try {
      issue(op, thread.track, false);
    } catch (const NativeError& e) {
      fail(e.what());
      return;
    }
  }
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
