#include "record-sink.h"

#include <algorithm>
#include <utility>

namespace streamscope {

namespace {
// A GPU record whose correlation is still unknown waits this many drains before it counts as lost
// (the issuing thread registers the id right after the API call returns, long before the record).
constexpr int kMaxDrainsWaited = 50;
}  // namespace

RecordSink::RecordSink(int64_t originNs, uint32_t firstStringId, size_t maxQueued)
    : originNs_(originNs),
      maxQueued_(maxQueued),
      nextStringId_(firstStringId),
      flowCap_(std::min(maxQueued, kMaxQueuedFlows)) {}

uint32_t RecordSink::intern(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  return internLocked(name);
}

uint32_t RecordSink::internLocked(const std::string& name) {
  auto found = stringIds_.find(name);
  if (found != stringIds_.end()) {
    return found->second;
  }
  // One slot and its bytes are kept back for the stand-in name itself.
  static const size_t standInBytes = std::string(kNamePastCap).size();
  if (stringIds_.size() + 1 >= kMaxStrings || stringBytes_ + name.size() + standInBytes > kMaxStringBytes) {
    counts_.namesDropped++;
    if (pastCapNameId_ == kNoRef) {
      pastCapNameId_ = nextStringId_++;
      stringIds_.emplace(kNamePastCap, pastCapNameId_);
      stringBytes_ += standInBytes;
      newStrings_.emplace_back(kNamePastCap);
    }
    return pastCapNameId_;
  }
  uint32_t id = nextStringId_++;
  stringIds_.emplace(name, id);
  stringBytes_ += name.size();
  newStrings_.push_back(name);
  return id;
}

uint32_t RecordSink::pushOp(int64_t startNs, int64_t endNs, uint32_t track, uint8_t kind,
                            uint32_t nameId, uint32_t correlationId, uint8_t flags, uint64_t bytes,
                            uint8_t memKinds, uint32_t refId) {
  uint32_t index = WaitLinker::kNone;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (readyOps_.size() + gpu_.size() >= maxQueued_) {
      counts_.dropped++;
      return index;
    }
    // Ready ops take the next indices in the order they were pushed (drain puts them first).
    index = opsSent_ + static_cast<uint32_t>(readyOps_.size());
    CodecOp op;
    op.startNs = rel(startNs);
    op.endNs = rel(endNs);
    op.track = track;
    op.kind = kind;
    op.nameId = nameId;
    op.correlationId = correlationId;
    op.flags = flags;
    op.bytes = bytes;
    op.memKinds = memKinds;
    op.refId = refId;
    readyOps_.push_back(op);
    readyOpApiCorrelation_.push_back(correlationId);
  }
  ring();
  return index;
}

void RecordSink::issued(uint32_t correlationId, const IssuedOp& op) {
  if (correlationId == 0) {
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  issued_.at(correlationId) = Issued{op, 0};
  waits_.issued(op.gpuTrack, op.event, correlationId);
}

void RecordSink::issuedOnDevices(const std::vector<uint32_t>& correlationIds, uint32_t nameId,
                                 std::vector<std::pair<int, uint32_t>> deviceTracks) {
  std::lock_guard<std::mutex> lock(mutex_);
  IssuedOp op;
  op.gpuTrack = deviceTracks.empty() ? 0 : deviceTracks.front().second;
  op.nameId = nameId;
  // A plan's collectives name a few distinct tables (one per group and stream set): reuse them.
  auto same = std::find(deviceTables_.begin(), deviceTables_.end(), deviceTracks);
  op.deviceTable = static_cast<int32_t>(same - deviceTables_.begin());
  if (same == deviceTables_.end()) deviceTables_.push_back(std::move(deviceTracks));
  for (uint32_t id : correlationIds) {
    if (id != 0) issued_.at(id) = Issued{op, 0};
  }
}

void RecordSink::waitIssued(const WaitIssue& wait) {
  std::lock_guard<std::mutex> lock(mutex_);
  waits_.wait(wait);
}

void RecordSink::graphNodes(size_t graph, std::vector<std::pair<uint32_t, uint32_t>> nodes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (graphNodes_.size() <= graph) graphNodes_.resize(graph + 1);
  graphNodes_[graph] = std::move(nodes);
}

void RecordSink::pushRange(int64_t startNs, int64_t endNs, uint32_t track, uint32_t nameId, uint8_t depth) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (readyOps_.size() + gpu_.size() + ranges_.size() >= maxQueued_) {
      counts_.dropped++;
      return;
    }
    ranges_.push_back(CodecRange{rel(startNs), rel(endNs), track, nameId, depth});
  }
  ring();
}

void RecordSink::pushRange(const CodecRange& absolute) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (readyOps_.size() + gpu_.size() + ranges_.size() >= maxQueued_) {
      counts_.dropped++;
      return;
    }
    CodecRange r = absolute;
    r.startNs = rel(absolute.startNs);
    r.endNs = rel(absolute.endNs);
    ranges_.push_back(r);
  }
  ring();
}

void RecordSink::pushFlow(uint32_t fromOp, uint32_t toOp, uint8_t kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (extraFlows_.size() >= flowCap_) {
    counts_.flowsDropped++;  // no drain for a long while (the server away): the arrow is lost
    return;
  }
  extraFlows_.push_back(CodecFlow{fromOp, toOp, kind});
}

void RecordSink::setMeta(std::string json) {
  std::lock_guard<std::mutex> lock(mutex_);
  meta_ = std::move(json);
}

void RecordSink::addStructure(std::string json) {
  std::lock_guard<std::mutex> lock(mutex_);
  structure_.push_back(std::move(json));
}

uint32_t RecordSink::addLaunch(const CodecLaunch& launch) {
  std::lock_guard<std::mutex> lock(mutex_);
  launches_.push_back(launch);
  return launchesSent_ + static_cast<uint32_t>(launches_.size()) - 1;
}

CodecEndCounts RecordSink::sentCounts() {
  std::lock_guard<std::mutex> lock(mutex_);
  CodecEndCounts c;
  c.strings = nextStringId_ - static_cast<uint32_t>(newStrings_.size());
  c.launches = launchesSent_;
  c.ops = opsSent_;
  c.flows = flowsSent_;
  c.ranges = rangesSent_;
  return c;
}

void RecordSink::pushGpu(const std::vector<GpuRecord>& records) {
  if (records.empty()) {
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const GpuRecord& r : records) {
      if (readyOps_.size() + gpu_.size() >= maxQueued_) {
        counts_.dropped++;
        continue;
      }
      gpu_.push_back(r);
    }
  }
  ring();
}

void RecordSink::addCuptiDropped(uint64_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  counts_.cuptiDropped += n;
}

void RecordSink::ring() {
  if (!rung_.exchange(true) && doorbell_) {
    doorbell_();
  }
}

bool RecordSink::hasPending() {
  std::lock_guard<std::mutex> lock(mutex_);
  return !readyOps_.empty() || !newStrings_.empty() || !gpu_.empty() || !ranges_.empty() ||
         !structure_.empty() || !launches_.empty() || !meta_.empty();
}

SinkCounts RecordSink::counts() {
  std::lock_guard<std::mutex> lock(mutex_);
  SinkCounts c = counts_;
  c.unresolvedWaits = waits_.unresolved();
  return c;
}

SinkFootprint RecordSink::footprint() {
  std::lock_guard<std::mutex> lock(mutex_);
  SinkFootprint f;
  f.strings = stringIds_.size();
  f.stringBytes = stringBytes_;
  f.queuedFlows = extraFlows_.size();
  f.issued = issued_.size();
  f.apiOpIndex = apiOpIndex_.size();
  f.pendingWaits = waits_.pending();
  f.deviceTables = deviceTables_.size();
  return f;
}

std::vector<uint8_t> RecordSink::drain(bool final) {
  rung_.store(false);
  std::vector<std::string> strings;
  std::vector<CodecOp> ops;
  std::vector<CodecFlow> flows;
  std::vector<CodecRange> ranges;
  uint32_t firstRange = 0;
  uint32_t firstStringId = 0;
  uint32_t firstOp = 0;
  uint32_t firstFlow = 0;
  std::string meta;
  std::vector<std::string> structure;
  std::vector<CodecLaunch> launches;
  uint32_t firstLaunch = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    meta.swap(meta_);
    structure.swap(structure_);
    launches.swap(launches_);
    firstLaunch = launchesSent_;
    launchesSent_ += static_cast<uint32_t>(launches.size());
    strings.swap(newStrings_);
    firstStringId = nextStringId_ - static_cast<uint32_t>(strings.size());
    firstOp = opsSent_;
    firstFlow = flowsSent_;
    ops.swap(readyOps_);
    ranges.swap(ranges_);
    firstRange = rangesSent_;
    rangesSent_ += static_cast<uint32_t>(ranges.size());
    std::vector<uint32_t> apiCorrelation;
    apiCorrelation.swap(readyOpApiCorrelation_);
    for (size_t i = 0; i < ops.size(); i++) {
      if (apiCorrelation[i] != 0) {
        apiOpIndex_.at(apiCorrelation[i]) = firstOp + static_cast<uint32_t>(i);
      }
    }
    // Join GPU records to the op that issued them; keep the unknown ones for a later drain.
    std::vector<GpuRecord> waiting;
    std::stable_sort(gpu_.begin(), gpu_.end(),
                     [](const GpuRecord& a, const GpuRecord& b) { return a.startNs < b.startNs; });
    for (GpuRecord& r : gpu_) {
      if (r.kind == kEventRecord) counts_.eventRecords++;
      if (r.startNs < originNs_.load()) {
        counts_.beforeOrigin++;
        continue;  // setup work (buffer initialization) before the run's window: not part of it
      }
      Issued* found = issued_.find(r.correlationId);
      if (found == nullptr) {
        if (!final && ++r.drainsWaited < kMaxDrainsWaited) {
          waiting.push_back(r);
        } else {
          counts_.unmatched++;
        }
        continue;
      }
      const IssuedOp& info = found->op;
      CodecOp op;
      op.startNs = rel(r.startNs);
      op.endNs = rel(r.endNs);
      op.track = info.gpuTrack;
      op.kind = r.kind;
      op.nameId = info.nameId;
      op.correlationId = r.correlationId;
      op.bytes = r.bytes;
      op.memKinds = r.memKinds;
      // Kernels point at their launch config, event records at their event.
      op.refId = info.graph || (r.kind != kKernel && r.kind != kEventRecord) ? kNoRef : info.refId;
      int32_t g = info.graphIndex;
      if (info.graph && g >= 0 && static_cast<size_t>(g) < graphNodes_.size()) {
        // A linear graph runs its nodes in order: the k-th record of a launch is its k-th node.
        uint32_t k = found->recordsSeen++;
        const auto& nodes = graphNodes_[static_cast<size_t>(g)];
        if (k < nodes.size()) {
          op.nameId = nodes[k].first;
          op.refId = r.kind == kKernel ? nodes[k].second : kNoRef;
        }
      }
      if (info.deviceTable >= 0) {
        for (const auto& [device, track] : deviceTables_[static_cast<size_t>(info.deviceTable)]) {
          if (device == r.deviceId) op.track = track;
        }
        if (r.nameId != 0) op.nameId = r.nameId;
        if (r.kind == kCopyDtoD && libraryNames_.copyDtoD != 0) op.nameId = libraryNames_.copyDtoD;
        if (r.kind == kCopyPtoP && libraryNames_.copyPtoP != 0) op.nameId = libraryNames_.copyPtoP;
        if (r.kind == kMemset && libraryNames_.memset != 0) op.nameId = libraryNames_.memset;
      }
      op.flags = static_cast<uint8_t>(info.flags | (info.graph ? kFlagInGraph : 0));
      uint32_t index = firstOp + static_cast<uint32_t>(ops.size());
      ops.push_back(op);
      if (const uint32_t* api = apiOpIndex_.find(r.correlationId)) {
        flows.push_back(CodecFlow{*api, index, kFlowApiToGpu});
      }
      waits_.matched(r.correlationId, op.track, r.kind == kEventRecord ? info.event : -1, index, r.endNs);
    }
    gpu_.swap(waiting);
    waits_.emit(firstOp, originNs_.load(), final, ops, flows);
    // Flows between ready ops (the profiler's API-to-GPU links) name ops sent by now.
    flows.insert(flows.end(), extraFlows_.begin(), extraFlows_.end());
    extraFlows_.clear();
    opsSent_ += static_cast<uint32_t>(ops.size());
    flowsSent_ += static_cast<uint32_t>(flows.size());
    counts_.opsOut += ops.size();
  }
  CodecWriter writer;
  if (!meta.empty()) writer.meta(meta);
  writer.strings(firstStringId, strings);
  for (const std::string& json : structure) writer.structure(json);
  writer.launches(firstLaunch, launches);
  writer.ops(firstOp, ops);
  writer.flows(firstFlow, flows);
  writer.ranges(firstRange, ranges);
  return writer.take();
}

}  // namespace streamscope
