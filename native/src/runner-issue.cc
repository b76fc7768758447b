// The issue path: one CUDA call per plan op, timed on the run's clock and tagged with its CUPTI
// correlation id (or bracketed by a cudaEvent pair in events mode).
#include <algorithm>
#include <cstdlib>

#include "check.h"
#include "clock.h"
#include "cupti-session.h"
#include "kernels.h"
#include "runner.h"

namespace streamscope {

namespace {

// Trace MemKind numbering (packages/trace/src/op-kind.ts), which CUPTI's memory kinds share.
constexpr uint8_t kMemPageable = 1;
constexpr uint8_t kMemPinned = 2;
constexpr uint8_t kMemDevice = 3;

void spinUntil(int64_t deadlineNs) {
  while (hostNowNs() < deadlineNs) {
  }
}

}  // namespace

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
uint32_t Runner::call(const char* api, uint8_t hostFlags, const PlanOp& op, uint32_t hostTrack,
                      bool capturing, bool gpuWork, uint8_t gpuKind, uint64_t bytes, uint8_t memKinds, Fn fn) {
  if (capturing) {
    cudaError_t st = fn();
    if (st != cudaSuccess) throw NativeError(describeCudaError(st, api, __FILE__, __LINE__));
    return WaitLinker::kNone;
  }
  const PlanStream& ps = plan_.streams.at(op.stream);
  cudaStream_t stream = streams_.at(op.stream);
  // Events mode times GPU work with a pair; an event record is itself only a marker.
  bool pair = gpuWork && gpuKind != kEventRecord && options_.timing == TimingMode::Events;
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
  if (gpuWork && options_.timing == TimingMode::Cupti) {
    bool graph = op.code == OpCode::GraphLaunch;
    int32_t event = gpuKind == kEventRecord ? static_cast<int32_t>(op.a[0]) : -1;
    sink_->issued(correlation, IssuedOp{ps.track, op.nameId, op.refId, 0, graph,
                                        graph ? static_cast<int32_t>(op.a[0]) : -1, event});
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
  // Every CUDA call is an ApiCall on its thread's track; Sync marks the synchronous cudaMemcpy
  // and cudaMemset (as the simulator does), whose GPU work the host waited for.
  uint32_t apiOp = sink_->pushOp(t0, t1, hostTrack, kApiCall, sink_->intern(api), correlation, hostFlags);
  if (gpuKind == kStreamWait && options_.timing == TimingMode::Cupti) {
    // CUPTI reports no GPU activity for a wait: the sink derives it from the ops around it.
    bool onHost = op.code == OpCode::EventSync;
    sink_->waitIssued(WaitIssue{ps.track, op.nameId, static_cast<int32_t>(op.a[0]), t0, apiOp, onHost});
  }
  return apiOp;
}

void Runner::issue(const PlanOp& op, uint32_t hostTrack, bool capturing) {
  const PlanStream& ps = plan_.streams.at(op.stream);
  selectDevice(ps.device);
  cudaStream_t s = streams_.at(op.stream);
  const int64_t* a = op.a;
  auto syncOn = [s, &ps](cudaError_t st) {
    // cudaMemcpy/cudaMemset on a stream other than the legacy one: the async call, then a wait,
    // which is what the synchronous API does on the per-thread default stream.
    return st == cudaSuccess && ps.type != StreamType::Legacy ? cudaStreamSynchronize(s) : st;
  };
  auto at = [this](int64_t buffer, int64_t offset) {
    return static_cast<void*>(static_cast<char*>(buffers_.at(static_cast<size_t>(buffer))) + offset);
  };
  switch (op.code) {
    case OpCode::KernelTimed:
    case OpCode::KernelWork: {
      LaunchShape shape;
      shape.grid = dim3(static_cast<unsigned>(a[1]), static_cast<unsigned>(a[2]), static_cast<unsigned>(a[3]));
      shape.block = dim3(static_cast<unsigned>(a[4]), static_cast<unsigned>(a[5] & 0xffff),
                         static_cast<unsigned>(a[5] >> 16));
      shape.sharedMemBytes = static_cast<unsigned>(a[6]);
      bool timed = op.code == OpCode::KernelTimed;
      call("cudaLaunchKernel", 0, op, hostTrack, capturing, true, kKernel, 0, 0, [&] {
        return timed ? launchTimedSpin(shape, static_cast<uint64_t>(a[0]), s)
                     : launchFixedWork(shape, static_cast<uint64_t>(a[0]), s);
      });
      break;
    }
    case OpCode::Fault:
      call("cudaLaunchKernel", 0, op, hostTrack, capturing, true, kKernel, 0, 0,
           [&] { return launchFault(s); });
      break;
    case OpCode::Copy:
    case OpCode::PeerCopy: {
      int dst = static_cast<int>(a[0]);
      int src = static_cast<int>(a[1]);
      size_t bytes = static_cast<size_t>(a[2]);
      uint8_t memKinds = 0;
      uint8_t kind = copyKind(dst, src, &memKinds);
      void* dp = at(dst, a[4]);
      void* sp = at(src, a[5]);
      if (op.code == OpCode::PeerCopy) {
        int dd = plan_.buffers[dst].device;
        int sd = plan_.buffers[src].device;
        call("cudaMemcpyPeerAsync", 0, op, hostTrack, capturing, true, kCopyPtoP, bytes, memKinds,
             [&] { return cudaMemcpyPeerAsync(dp, dd, sp, sd, bytes, s); });
      } else if (a[3] != 0) {
        call("cudaMemcpyAsync", 0, op, hostTrack, capturing, true, kind, bytes, memKinds,
             [&] { return cudaMemcpyAsync(dp, sp, bytes, cudaMemcpyDefault, s); });
      } else {
        call("cudaMemcpy", kFlagSync, op, hostTrack, capturing, true, kind, bytes, memKinds, [&] {
          return ps.type == StreamType::Legacy ? cudaMemcpy(dp, sp, bytes, cudaMemcpyDefault)
                                               : syncOn(cudaMemcpyAsync(dp, sp, bytes, cudaMemcpyDefault, s));
        });
      }
      break;
    }
    case OpCode::Memset: {
      void* p = at(a[0], a[4]);
      size_t bytes = static_cast<size_t>(a[1]);
      int value = static_cast<int>(a[3]);
      uint8_t memKinds = static_cast<uint8_t>(kMemDevice << 4);
      if (a[2] != 0) {
        call("cudaMemsetAsync", 0, op, hostTrack, capturing, true, kMemset, bytes, memKinds,
             [&] { return cudaMemsetAsync(p, value, bytes, s); });
      } else {
        call("cudaMemset", kFlagSync, op, hostTrack, capturing, true, kMemset, bytes, memKinds, [&] {
          return ps.type == StreamType::Legacy ? cudaMemset(p, value, bytes)
                                               : syncOn(cudaMemsetAsync(p, value, bytes, s));
        });
      }
      break;
    }
    case OpCode::EventRecord: {
      size_t e = static_cast<size_t>(a[0]);
      call("cudaEventRecord", 0, op, hostTrack, capturing, true, kEventRecord, 0, 0,
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
      call("cudaStreamWaitEvent", 0, op, hostTrack, capturing, false, kStreamWait, 0, 0,
           [&] { return cudaStreamWaitEvent(s, events_.at(static_cast<size_t>(a[0])), 0); });
      break;
    case OpCode::StreamSync:
      call("cudaStreamSynchronize", 0, op, hostTrack, capturing, false, 0, 0, 0,
           [&] { return cudaStreamSynchronize(s); });
      break;
    case OpCode::EventSync:
      call("cudaEventSynchronize", 0, op, hostTrack, capturing, false, kStreamWait, 0, 0,
           [&] { return cudaEventSynchronize(events_.at(static_cast<size_t>(a[0]))); });
      break;
    case OpCode::DeviceSync:
      selectDevice(static_cast<int>(a[0]));
      call("cudaDeviceSynchronize", 0, op, hostTrack, capturing, false, 0, 0, 0,
           [&] { return cudaDeviceSynchronize(); });
      break;
    case OpCode::HostFunc: {
      HostFuncData* data = nullptr;
      {
        std::lock_guard<std::mutex> lock(recordMutex_);
        hostFuncs_.push_back(std::make_unique<HostFuncData>(HostFuncData{this, ps.track, op.nameId, a[0]}));
        data = hostFuncs_.back().get();
      }
      call("cudaLaunchHostFunc", 0, op, hostTrack, capturing, false, 0, 0, 0,
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
    case OpCode::GraphCapture: {
      size_t g = static_cast<size_t>(a[0]);
      call("cudaGraphInstantiate", 0, op, hostTrack, capturing, false, 0, 0, 0,
           [&] { return captureGraph(g); });
      break;
    }
    case OpCode::GraphLaunch: {
      size_t g = static_cast<size_t>(a[0]);
      for (int64_t i = 0; i < std::max<int64_t>(1, a[1]) && !cancelled_.load(); i++) {
        cudaGraphExec_t exec = graphs_.at(g);
        if (exec == nullptr) SS_FAIL("graph " + std::to_string(g) + " launched before it was captured");
        call("cudaGraphLaunch", 0, op, hostTrack, capturing, true, kGraphLaunch, 0, 0,
             [&] { return cudaGraphLaunch(exec, s); });
      }
      break;
    }
    case OpCode::MallocAsync: {
      size_t b = static_cast<size_t>(a[0]);
      size_t bytes = plan_.buffers.at(b).bytes;
      call("cudaMallocAsync", 0, op, hostTrack, capturing, false, 0, 0, 0,
           [&] { return cudaMallocAsync(&buffers_.at(b), bytes, s); });
      break;
    }
    case OpCode::FreeAsync: {
      size_t b = static_cast<size_t>(a[0]);
      void* p = buffers_.at(b);
      buffers_.at(b) = nullptr;
      call("cudaFreeAsync", 0, op, hostTrack, capturing, false, 0, 0, 0,
           [&] { return cudaFreeAsync(p, s); });
      break;
    }
    case OpCode::Malloc: {
      size_t b = static_cast<size_t>(a[0]);
      const PlanBuffer& buf = plan_.buffers.at(b);
      size_t bytes = buf.bytes > 0 ? buf.bytes : 1;
      selectDevice(buf.device);
      void** slot = &buffers_.at(b);
      switch (buf.kind) {
        case BufferKind::Pinned:
          call("cudaMallocHost", 0, op, hostTrack, capturing, false, 0, 0, 0,
               [&] { return cudaMallocHost(slot, bytes); });
          break;
        case BufferKind::Pageable:
          call("malloc", 0, op, hostTrack, capturing, false, 0, 0, 0, [&] {
            *slot = std::malloc(bytes);
            return *slot != nullptr ? cudaSuccess : cudaErrorMemoryAllocation;
          });
          break;
        default:
          call("cudaMalloc", 0, op, hostTrack, capturing, false, 0, 0, 0,
               [&] { return cudaMalloc(slot, bytes); });
      }
      break;
    }
    case OpCode::Free: {
      size_t b = static_cast<size_t>(a[0]);
      const PlanBuffer& buf = plan_.buffers.at(b);
      selectDevice(buf.device);
      void* p = buffers_.at(b);
      buffers_.at(b) = nullptr;
      switch (buf.kind) {
        case BufferKind::Pinned:
          call("cudaFreeHost", 0, op, hostTrack, capturing, false, 0, 0, 0, [&] { return cudaFreeHost(p); });
          break;
        case BufferKind::Pageable:
          call("free", 0, op, hostTrack, capturing, false, 0, 0, 0, [&] {
            std::free(p);
            return cudaSuccess;
          });
          break;
        default:
          call("cudaFree", 0, op, hostTrack, capturing, false, 0, 0, 0, [&] { return cudaFree(p); });
      }
      break;
    }
    case OpCode::Collective:
      if (capturing) SS_FAIL("a collective cannot be captured into a graph");
      issueCollective(op, hostTrack);
      break;
    case OpCode::RangePush:
    case OpCode::RangePop:
      break;  // handled by the issue loop, which owns the thread's range stack
  }
}

void CUDART_CB Runner::onHostFunc(void* raw) {
  // Runs on a CUDA-internal thread: no CUDA calls here, only our clock and the sink.
  auto* data = static_cast<HostFuncData*>(raw);
  int64_t t0 = hostNowNs();
  spinUntil(t0 + data->durNs);
  data->runner->sink_->pushOp(t0, hostNowNs(), data->track, kHostFunc, data->nameId);
}

}  // namespace streamscope
