// A validated plan as plain structs: the binding layer copies it out of JS on the main thread,
// so the threads that issue CUDA work never touch a Napi value. TypeScript validates the
// workload and lowers it to this form (packages/executor/src/cuda/native-plan.ts mirrors it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace streamscope {

enum class StreamType : int { Legacy = 0, PerThread = 1, Blocking = 2, NonBlocking = 3 };
enum class BufferKind : int { Device = 0, Pinned = 1, Pageable = 2, StreamOrdered = 3 };

// Kernel shape: a1 gridX, a2 gridY, a3 gridZ, a4 blockX, a5 blockY | blockZ << 16, a6 shared bytes.
enum class OpCode : int {
  KernelTimed = 1,   // a0 durNs (each block spins that long), shape in a1..a6
  KernelWork = 2,    // a0 iterations per thread, shape in a1..a6
  Copy = 3,          // a0 dst buffer, a1 src buffer, a2 bytes, a3 1 = async, a4 dst offset, a5 src offset
  Memset = 4,        // a0 buffer, a1 bytes, a2 1 = async, a3 value, a4 offset
  EventRecord = 5,   // a0 event
  StreamWait = 6,    // a0 event
  StreamSync = 7,    // stream
  EventSync = 8,     // a0 event
  DeviceSync = 9,    // a0 device
  HostFunc = 10,     // a0 durNs the callback busies its thread
  HostWork = 11,     // a0 durNs the host thread is busy
  GraphLaunch = 12,  // a0 graph, a1 launches in a row
  MallocAsync = 13,  // a0 stream-ordered buffer
  FreeAsync = 14,    // a0 stream-ordered buffer
  PeerCopy = 15,     // a0 dst buffer, a1 src buffer, a2 bytes, a4 dst offset, a5 src offset
  WaitRecorded = 16, // a0 event, a1 count: host waits until another thread recorded it a1 times
  Fault = 17,        // a kernel that faults (tests)
  GraphCapture = 18, // a0 graph: capture its ops on its stream, then instantiate
  Malloc = 19,       // a0 deferred buffer: cudaMalloc / cudaMallocHost / malloc by its kind
  Free = 20,         // a0 deferred buffer
  RangePush = 21,    // nameId: an NVTX-style range on the issuing thread
  RangePop = 22,
  Collective = 23,   // a0 collective: its parts issued in one ncclGroupStart/End (plan.collectives)
};
constexpr int kMaxOpCode = 23;

struct PlanOp {
  OpCode code = OpCode::KernelTimed;
  int stream = 0;
  int64_t a[7] = {0, 0, 0, 0, 0, 0, 0};
  uint32_t nameId = 0;          // trace string id of the op's label
  uint32_t refId = 0xffffffffu; // kernel: launch config index
};

struct PlanStream {
  int device = 0;
  StreamType type = StreamType::Blocking;
  int priority = 0;
  uint32_t track = 0;
};

struct PlanBuffer {
  int device = 0;
  BufferKind kind = BufferKind::Device;
  uint64_t bytes = 0;
  bool deferred = false;  // allocated by a Malloc/MallocAsync op, not at setup
};

struct PlanEvent {
  int device = 0;
};

struct PlanGraph {
  int captureStream = 0;  // a created (non-default) stream of the plan
  std::vector<PlanOp> ops;
};

// One NCCL call of a collective: a member's ncclAllReduce/…, or one half of a send/recv pair.
enum class CollectiveCall : int { AllReduce = 0, ReduceScatter = 1, AllGather = 2, Broadcast = 3, Send = 4, Recv = 5 };

struct PlanCollectivePart {
  CollectiveCall call = CollectiveCall::AllReduce;
  int stream = 0;  // on the member's device
  int sendBuffer = -1;
  int64_t sendOffset = 0;
  int recvBuffer = -1;
  int64_t recvOffset = 0;
  int rank = 0;  // the member's rank in the communicator set
  int peer = -1; // send/recv: the other rank
};

struct PlanCollective {
  int comm = 0;        // index in Plan::comms
  int64_t count = 0;   // NCCL's count (elements)
  int dtype = 7;       // ncclDataType_t (NcclDtype)
  int reduce = 0;      // ncclRedOp_t (NcclRedOp)
  int root = 0;        // broadcast's root rank
  std::vector<PlanCollectivePart> parts;
};

// A communicator set over distinct devices (ncclCommInitAll): rank i is devices[i].
struct PlanComm {
  std::vector<int> devices;
};

struct PlanThread {
  uint32_t track = 0;
  std::vector<PlanOp> ops;
};

struct Plan {
  std::vector<int> devices;
  std::vector<PlanStream> streams;
  std::vector<PlanBuffer> buffers;
  std::vector<PlanEvent> events;
  std::vector<PlanGraph> graphs;
  std::vector<PlanThread> threads;
  std::vector<PlanComm> comms;
  std::vector<PlanCollective> collectives;
};

enum class TimingMode { Cupti, Events, None };

struct RunOptions {
  TimingMode timing = TimingMode::Cupti;
  bool timingAuto = true;  // fall back to events when CUPTI cannot start
  int flushIntervalMs = 10;
  uint32_t firstStringId = 1;
  size_t maxQueuedRecords = 4u << 20;
};

constexpr int kOpStride = 11;  // code, stream, a0..a6, nameId, refId

}  // namespace streamscope
