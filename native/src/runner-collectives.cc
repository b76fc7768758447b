// Collectives through NCCL: one communicator set per plan comm (ncclCommInitAll over its
// devices, made and warmed at setup), and one ncclGroupStart/End per collective op, so a single
// host thread drives every member as NCCL's single-process, multi-device mode requires. CUPTI
// sees NCCL's own kernels (ncclDevKernel_…): the launches made inside the group are captured by
// correlation id and each record lands on the stream track of the device that ran it.
#include <set>
#include <tuple>

#include "check.h"
#include "clock.h"
#include "cupti-session.h"
#include "runner.h"

namespace streamscope {

namespace {

const char* callName(CollectiveCall call) {
  switch (call) {
    case CollectiveCall::AllReduce: return "ncclAllReduce";
    case CollectiveCall::ReduceScatter: return "ncclReduceScatter";
    case CollectiveCall::AllGather: return "ncclAllGather";
    case CollectiveCall::Broadcast: return "ncclBroadcast";
    case CollectiveCall::Send: return "ncclSend";
    case CollectiveCall::Recv: return "ncclRecv";
  }
  return "nccl";
}

/** The API op's name: the call when every part makes the same one, else the group's end. */
const char* groupName(const PlanCollective& c) {
  for (const PlanCollectivePart& p : c.parts) {
    if (p.call != c.parts.front().call) return "ncclGroupEnd";
  }
  return callName(c.parts.front().call);
}

// Warm-up calls are bounded: a plan of thousands of collectives warms each distinct shape once.
constexpr size_t kMaxWarmShapes = 32;

}  // namespace

NcclResult Runner::callPart(const PlanCollective& c, const PlanCollectivePart& part) {
  const NcclApi& nccl = ncclApi();
  auto at = [this](int buffer, int64_t offset) -> void* {
    if (buffer < 0) return nullptr;
    return static_cast<char*>(buffers_.at(static_cast<size_t>(buffer))) + offset;
  };
  void* send = at(part.sendBuffer, part.sendOffset);
  void* recv = at(part.recvBuffer, part.recvOffset);
  NcclComm comm = comms_.at(static_cast<size_t>(c.comm)).at(static_cast<size_t>(part.rank));
  cudaStream_t s = streams_.at(static_cast<size_t>(part.stream));
  size_t count = static_cast<size_t>(c.count);
  switch (part.call) {
    case CollectiveCall::AllReduce: return nccl.allReduce(send, recv, count, c.dtype, c.reduce, comm, s);
    case CollectiveCall::ReduceScatter: return nccl.reduceScatter(send, recv, count, c.dtype, c.reduce, comm, s);
    case CollectiveCall::AllGather: return nccl.allGather(send, recv, count, c.dtype, comm, s);
    case CollectiveCall::Broadcast: return nccl.broadcast(send, recv, count, c.dtype, c.root, comm, s);
    case CollectiveCall::Send: return nccl.send(send, count, c.dtype, part.peer, comm, s);
    case CollectiveCall::Recv: return nccl.recv(recv, count, c.dtype, part.peer, comm, s);
  }
  return kNcclSuccess;
}

void Runner::setupComms() {
  if (plan_.comms.empty()) return;
  const NcclApi& nccl = ncclApi();
  if (!nccl.loaded()) throw NativeError(nccl.error);
  comms_.assign(plan_.comms.size(), {});
  for (size_t i = 0; i < plan_.comms.size(); i++) {
    const std::vector<int>& devices = plan_.comms[i].devices;
    comms_[i].assign(devices.size(), nullptr);
    NcclResult r = nccl.commInitAll(comms_[i].data(), static_cast<int>(devices.size()), devices.data());
    if (r != kNcclSuccess) {
      comms_[i].clear();
      throw NativeError(nccl.describe(r, "ncclCommInitAll") + " for comms[" + std::to_string(i) + "] over " +
                        std::to_string(devices.size()) + " device(s)");
    }
  }
  // NCCL connects a protocol's channels on first use: run each distinct shape once now, so the
  // timed run measures transfers, not connection setup. Parts on buffers that a malloc op
  // allocates later cannot run here; their first call pays that setup in the run.
  std::set<std::tuple<int, int, int64_t, int>> warmed;
  for (const PlanCollective& c : plan_.collectives) {
    if (warmed.size() >= kMaxWarmShapes) break;
    bool allocated = true;
    for (const PlanCollectivePart& p : c.parts) {
      for (int b : {p.sendBuffer, p.recvBuffer}) allocated = allocated && (b < 0 || buffers_.at(static_cast<size_t>(b)) != nullptr);
    }
    auto shape = std::make_tuple(c.comm, static_cast<int>(c.parts.front().call), c.count, c.dtype);
    if (!allocated || !warmed.insert(shape).second) continue;
    NcclResult r = nccl.groupStart();
    for (const PlanCollectivePart& p : c.parts) {
      if (r == kNcclSuccess) r = callPart(c, p);
    }
    NcclResult end = nccl.groupEnd();
    if (r == kNcclSuccess) r = end;
    if (r != kNcclSuccess) throw NativeError(nccl.describe(r, groupName(c)) + " while warming up");
  }
  forgetDevice();
  for (int d : plan_.devices) {
    selectDevice(d);
    SS_CUDA_CHECK(cudaDeviceSynchronize());
  }
}

void Runner::teardownComms() {
  if (comms_.empty()) return;
  const NcclApi& nccl = ncclApi();
  for (std::vector<NcclComm>& set : comms_) {
    for (NcclComm comm : set) {
      if (comm != nullptr) nccl.commDestroy(comm);
    }
  }
  comms_.clear();
}

void Runner::issueCollective(const PlanOp& op, uint32_t hostTrack) {
  const PlanCollective& c = plan_.collectives.at(static_cast<size_t>(op.a[0]));
  const NcclApi& nccl = ncclApi();
  bool cupti = options_.timing == TimingMode::Cupti;
  bool events = options_.timing == TimingMode::Events;
  std::vector<PendingPair> pairs;
  if (events) {
    for (const PlanCollectivePart& p : c.parts) {
      const PlanStream& ps = plan_.streams.at(static_cast<size_t>(p.stream));
      PendingPair pending{};
      selectDevice(ps.device);
      SS_CUDA_CHECK(cudaEventCreate(&pending.start));
      SS_CUDA_CHECK(cudaEventCreate(&pending.end));
      SS_CUDA_CHECK(cudaEventRecord(pending.start, streams_.at(static_cast<size_t>(p.stream))));
      pending.device = ps.device;
      pending.op.track = ps.track;
      pending.op.kind = kKernel;
      pending.op.nameId = op.nameId;
      pending.op.refId = kNoRef;
      pairs.push_back(pending);
    }
  }
  if (cupti) beginCorrelationCapture();
  int64_t t0 = hostNowNs();
  NcclResult r = nccl.groupStart();
  for (const PlanCollectivePart& p : c.parts) {
    if (r == kNcclSuccess) r = callPart(c, p);
  }
  NcclResult end = nccl.groupEnd();
  int64_t t1 = hostNowNs();
  std::vector<uint32_t> correlations = cupti ? endCorrelationCapture() : std::vector<uint32_t>{};
  if (r == kNcclSuccess) r = end;
  if (r != kNcclSuccess) throw NativeError(nccl.describe(r, groupName(c)));
  forgetDevice();  // NCCL switches devices inside the group
  if (cupti) {
    std::vector<std::pair<int, uint32_t>> tracks;
    for (const PlanCollectivePart& p : c.parts) {
      const PlanStream& ps = plan_.streams.at(static_cast<size_t>(p.stream));
      tracks.emplace_back(ps.device, ps.track);
    }
    sink_->issuedOnDevices(correlations, op.nameId, std::move(tracks));
  }
  for (size_t i = 0; i < pairs.size(); i++) {
    const PlanCollectivePart& p = c.parts[i];
    selectDevice(pairs[i].device);
    SS_CUDA_CHECK(cudaEventRecord(pairs[i].end, streams_.at(static_cast<size_t>(p.stream))));
    {
      std::lock_guard<std::mutex> lock(pairMutex_);
      pairs_.push_back(pairs[i]);
    }
    pairWake_.notify_all();
  }
  uint32_t correlation = correlations.empty() ? 0 : correlations.front();
  sink_->pushOp(t0, t1, hostTrack, kApiCall, sink_->intern(groupName(c)), correlation, 0);
}

}  // namespace streamscope
