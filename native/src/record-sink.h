// Where records wait between the threads that produce them (issue threads, CUPTI's buffer
// callback, the event-completion thread, host callbacks) and JS, which pulls them with drain().
// GPU records are joined to the op that issued them by CUPTI correlation id; everything leaves
// as codec batches (strings, ops, flows). Memory is capped: past the cap records are dropped
// and counted, never silently.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "bounded-map.h"
#include "codec-writer.h"
#include "collector-bounds.h"
#include "wait-linker.h"

namespace streamscope {

// Op kinds and flags, as packages/trace/src/op-kind.ts numbers them (part of the codec).
enum OpKindCode : uint8_t {
  kKernel = 0,
  kCopyHtoD = 1,
  kCopyDtoH = 2,
  kCopyDtoD = 3,
  kCopyPtoP = 4,
  kCopyHtoH = 5,
  kMemset = 6,
  kEventRecord = 7,
  kStreamWait = 8,
  kStreamSync = 9,
  kEventSync = 10,
  kDeviceSync = 11,
  kHostFunc = 12,
  kGraphLaunch = 13,
  kAlloc = 14,
  kFree = 15,
  kApiCall = 16,
  kHostWork = 17,
};
enum OpFlagBits : uint8_t { kFlagSync = 1, kFlagInGraph = 2, kFlagEventTimed = 4, kFlagIncomplete = 8 };
constexpr uint8_t kFlowRecordToWait = 0;
constexpr uint8_t kFlowApiToGpu = 1;
constexpr uint32_t kNoRef = 0xffffffffu;

/** What the issuing thread knows about the GPU work behind one API call. */
struct IssuedOp {
  uint32_t gpuTrack = 0;
  uint32_t nameId = 0;
  uint32_t refId = kNoRef;
  uint8_t flags = 0;
  bool graph = false;  // a graph launch: several GPU records share its correlation id
  int32_t graphIndex = -1;
  int32_t event = -1;  // an event record: the plan's event index
  int32_t deviceTable = -1;  // a collective: the record's device picks its track (deviceTables_)
};

/** A GPU activity as CUPTI reported it (absolute ns), before it is joined to its op. */
struct GpuRecord {
  int64_t startNs = 0;
  int64_t endNs = 0;
  uint32_t correlationId = 0;
  uint8_t kind = kKernel;
  uint8_t memKinds = 0;
  uint64_t bytes = 0;
  int drainsWaited = 0;
  int32_t deviceId = -1;  // kernels: the CUDA device that ran it
  uint32_t nameId = 0;    // kernels, when the sink wants CUPTI's names (collectives): interned name
};

struct SinkCounts {
  uint64_t opsOut = 0;
  uint64_t dropped = 0;        // past the memory cap
  uint64_t unmatched = 0;      // GPU records whose API call never became known
  uint64_t cuptiDropped = 0;   // reported by cuptiActivityGetNumDroppedRecords
  uint64_t beforeOrigin = 0;   // GPU records of setup work, before the run's window (not lost)
  uint64_t eventRecords = 0;   // CUDA event records received from CUPTI
  uint64_t unresolvedWaits = 0;  // stream waits whose GPU times never arrived (no op drawn)
  uint64_t flowsDropped = 0;     // flows past kMaxQueuedFlows (arrows not drawn)
  uint64_t namesDropped = 0;     // names past kMaxStrings / kMaxStringBytes (shown as kNamePastCap)
};

/** How full the sink's bounded tables are (the self-test's footprint; entries, not bytes). */
struct SinkFootprint {
  size_t strings = 0;
  size_t stringBytes = 0;
  size_t queuedFlows = 0;
  size_t issued = 0;
  size_t apiOpIndex = 0;
  size_t pendingWaits = 0;
  size_t deviceTables = 0;
};

class RecordSink {
 public:
  RecordSink(int64_t originNs, uint32_t firstStringId, size_t maxQueued);

  /**
   * Interns a name; new names leave in the next drain as a strings batch. Past kMaxStrings or
   * kMaxStringBytes a new name is counted (namesDropped) and kNamePastCap's id stands for it.
   */
  uint32_t intern(const std::string& name);
  /** A finished op with absolute times. A correlation id marks it as the API call behind GPU work. */
  /** Returns the op's index in the trace, or WaitLinker::kNone if it was dropped. */
  uint32_t pushOp(int64_t startNs, int64_t endNs, uint32_t track, uint8_t kind, uint32_t nameId,
              uint32_t correlationId = 0, uint8_t flags = 0, uint64_t bytes = 0, uint8_t memKinds = 0,
              uint32_t refId = kNoRef);
  /** Tells the sink which op a correlation id belongs to (the API call's op is pushed separately). */
  void issued(uint32_t correlationId, const IssuedOp& op);
  /** A cudaStreamWaitEvent or cudaEventSynchronize, after its API op was pushed (WaitLinker). */
  void waitIssued(const WaitIssue& wait);
  /**
   * The name and launch config of each GPU-work node of a captured linear graph, in order: a
   * launch's records (all with its correlation id) are named by their order of start.
   */
  void graphNodes(size_t graph, std::vector<std::pair<uint32_t, uint32_t>> nodes);
  /**
   * The launches one collective made (NCCL launches a kernel per member inside ncclGroupEnd):
   * each record lands on the track of the device that ran it, named as CUPTI names the kernel.
   */
  void issuedOnDevices(const std::vector<uint32_t>& correlationIds, uint32_t nameId,
                       std::vector<std::pair<int, uint32_t>> deviceTracks);
  /** Names of the copies and memsets a library makes (NCCL copies instead of a 1-rank kernel). */
  struct LibraryOpNames {
    uint32_t copyDtoD = 0;
    uint32_t copyPtoP = 0;
    uint32_t memset = 0;
  };
  void libraryOpNames(const LibraryOpNames& names) { libraryNames_ = names; }
  /** Whether kernel records should carry their interned CUPTI name (a plan with collectives). */
  void wantKernelNames(bool on) { kernelNames_.store(on); }
  bool kernelNamesWanted() const { return kernelNames_.load(); }
  /** A push/pop range on a host thread (absolute times). */
  void pushRange(int64_t startNs, int64_t endNs, uint32_t track, uint32_t nameId, uint8_t depth);
  /** Any range kind (absolute times); dropped and counted past the memory cap. */
  void pushRange(const CodecRange& absolute);
  /** A flow between two ops this sink already returned indices for; past kMaxQueuedFlows, counted. */
  void pushFlow(uint32_t fromOp, uint32_t toOp, uint8_t kind);
  /** The stream's metadata (TraceMeta JSON), sent first in the next drain. */
  void setMeta(std::string json);
  /** Structure JSON for new devices, processes or tracks; sent before any op of the same drain. */
  void addStructure(std::string json);
  /** A new launch configuration; its id is the number added before it. */
  uint32_t addLaunch(const CodecLaunch& launch);
  /** Strings, launches, ops, flows and ranges sent so far (the end batch's share of the sink). */
  CodecEndCounts sentCounts();
  void pushGpu(const std::vector<GpuRecord>& records);
  void addCuptiDropped(uint64_t n);

  /** Codec batches for everything new; `final` also emits GPU records still unmatched as lost. */
  std::vector<uint8_t> drain(bool final);
  bool hasPending();
  SinkCounts counts();
  SinkFootprint footprint();
  int64_t originNs() const { return originNs_.load(); }
  /** Moves the run's origin to when issue begins (before any op of the run is pushed). */
  void setOrigin(int64_t originNs) { originNs_.store(originNs); }

  /** Called (from any thread) when records arrive and the last doorbell was answered. */
  void setDoorbell(std::function<void()> ring) { doorbell_ = std::move(ring); }

 private:
  void ring();
  int64_t rel(int64_t absNs) const {
    int64_t origin = originNs_.load();
    return absNs > origin ? absNs - origin : 0;
  }

  std::atomic<int64_t> originNs_;
  const size_t maxQueued_;
  std::mutex mutex_;
  uint32_t internLocked(const std::string& name);

  std::unordered_map<std::string, uint32_t> stringIds_;
  size_t stringBytes_ = 0;
  uint32_t pastCapNameId_ = kNoRef;
  uint32_t nextStringId_;
  std::vector<std::string> newStrings_;
  std::vector<CodecOp> readyOps_;
  std::vector<uint32_t> readyOpApiCorrelation_;  // per ready op: correlation if it is an API call
  std::vector<GpuRecord> gpu_;
  std::vector<CodecRange> ranges_;
  uint32_t rangesSent_ = 0;
  std::string meta_;
  std::vector<std::string> structure_;
  std::vector<CodecLaunch> launches_;
  uint32_t launchesSent_ = 0;
  std::vector<CodecFlow> extraFlows_;  // at most flowCap_
  const size_t flowCap_;               // kMaxQueuedFlows, or the record cap when lower
  struct Issued {
    IssuedOp op;
    uint32_t recordsSeen = 0;  // a graph launch's records so far: the next one is node k
  };
  // Correlation id -> its op, for GPU records still to come. Bounded: a record forgotten here
  // waits kMaxDrainsWaited drains, then counts as unmatched (reported).
  BoundedMap<Issued> issued_{kMaxIssuedOps};
  // Distinct (device, track) tables of the collectives: each call names one of a few.
  std::vector<std::vector<std::pair<int, uint32_t>>> deviceTables_;
  std::atomic<bool> kernelNames_{false};
  LibraryOpNames libraryNames_;  // set before the run starts
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> graphNodes_;  // per graph: name, ref
  WaitLinker waits_;
  // Correlation id -> op index of the API call, for GPU records still to come. Bounded: the
  // injection collector pushes every op with its correlation (800k a second in per_call), and
  // a record arrives within a few drains of its call.
  BoundedMap<uint32_t> apiOpIndex_{kMaxApiByCorrelation};
  uint32_t opsSent_ = 0;
  uint32_t flowsSent_ = 0;
  SinkCounts counts_;
  std::atomic<bool> rung_{false};
  std::function<void()> doorbell_;
};

}  // namespace streamscope
