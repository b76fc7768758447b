// Executes one plan: setup on the caller's thread (streams, events, buffers, graphs: outside the
// timed window), then one native thread per plan host thread issues its ops in order, timing
// every API call on the run's clock; GPU times come from CUPTI (or cudaEvent pairs).
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "nccl-api.h"
#include "plan.h"
#include "record-sink.h"

namespace streamscope {

enum class RunState { Running = 0, Finished = 1, Cancelled = 2, Failed = 3 };

class Runner {
 public:
  /** Validates handles and sets everything up; throws NativeError with the reason. */
  Runner(Plan plan, RunOptions options);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  /** Starts the issue threads; `doorbell` is rung (from any thread) when records wait. */
  void start(std::function<void()> doorbell);
  void cancel();
  RecordSink& sink() { return *sink_; }
  TimingMode timing() const { return options_.timing; }
  const std::string& timingNote() const { return timingNote_; }
  RunState state() const { return state_.load(); }
  std::string error();
  int64_t makespanNs() const { return makespanNs_.load(); }

 private:
  struct HostFuncData {
    Runner* runner;
    uint32_t track;
    uint32_t nameId;
    int64_t durNs;
  };
  struct PendingPair {
    cudaEvent_t start;
    cudaEvent_t end;
    int device;
    CodecOp op;
  };

  void setup();
  void teardown();
  void warmDevice(int device);
  void threadMain(size_t threadIndex);
  void openGate();
  cudaError_t captureGraph(size_t index);
  void control();
  void issueAll(size_t threadIndex);
  void issue(const PlanOp& op, uint32_t hostTrack, bool capturing);
  /** Issues one CUDA call and pushes its API op; returns that op's index (WaitLinker::kNone if none). */
  template <typename Fn>
  uint32_t call(const char* api, uint8_t hostFlags, const PlanOp& op, uint32_t hostTrack, bool capturing,
            bool gpuWork, uint8_t gpuKind, uint64_t bytes, uint8_t memKinds, Fn fn);
  void completeEvents();
  // Collectives (runner-collectives.cc): communicators made and warmed at setup, outside the
  // timed window; one ncclGroupStart/End per collective op.
  void setupComms();
  void teardownComms();
  NcclResult callPart(const PlanCollective& c, const PlanCollectivePart& part);
  void issueCollective(const PlanOp& op, uint32_t hostTrack);
  void fail(const std::string& reason);
  void selectDevice(int device);
  /** After a library (NCCL) may have switched the thread's device behind selectDevice's back. */
  void forgetDevice();
  static void CUDART_CB onHostFunc(void* data);
  uint8_t copyKind(int dst, int src, uint8_t* memKinds) const;

  Plan plan_;
  RunOptions options_;
  std::string timingNote_;
  std::unique_ptr<RecordSink> sink_;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> events_;
  std::vector<void*> buffers_;
  std::vector<cudaGraphExec_t> graphs_;
  std::vector<cudaGraph_t> graphTemplates_;
  std::vector<std::unique_ptr<HostFuncData>> hostFuncs_;
  std::vector<std::vector<NcclComm>> comms_;  // per plan comm, by rank
  std::vector<cudaEvent_t> baseEvents_;  // events mode: per plan device
  std::vector<int64_t> baseHostNs_;

  std::mutex recordMutex_;
  std::condition_variable recordWake_;
  std::vector<int64_t> recordCounts_;

  std::mutex pairMutex_;
  std::condition_variable pairWake_;
  std::deque<PendingPair> pairs_;
  bool pairsClosed_ = false;
  std::thread completion_;

  std::mutex teardownMutex_;
  std::mutex gateMutex_;
  std::condition_variable gateWake_;
  bool gateOpen_ = false;
  size_t warmed_ = 0;
  std::vector<std::thread> issueThreads_;
  std::thread controller_;
  std::atomic<bool> cancelled_{false};
  std::atomic<RunState> state_{RunState::Running};
  std::atomic<int64_t> makespanNs_{0};
  std::mutex errorMutex_;
  std::string error_;
  std::function<void()> doorbell_;
};

}  // namespace streamscope
