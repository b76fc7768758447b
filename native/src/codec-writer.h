// The record codec's binary form, written natively (packages/trace/src/codec/batch-format.ts
// and trace-encoder.ts are the reference): 16-byte batch headers, LEB128 varints, zigzag deltas.
// The addon produces strings, ops, flows and ranges; the injection collector also meta,
// structure, launches and the end batch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace streamscope {

/** One op as the codec carries it; times are ns since the trace origin. */
struct CodecOp {
  int64_t startNs = 0;
  int64_t endNs = 0;
  uint32_t track = 0;
  uint8_t kind = 0;
  uint32_t nameId = 0;
  uint64_t bytes = 0;
  uint8_t memKinds = 0;
  uint32_t correlationId = 0;
  uint32_t refId = 0xffffffffu;  // noRef
  uint8_t flags = 0;
};

struct CodecFlow {
  uint32_t fromOp = 0;
  uint32_t toOp = 0;
  uint8_t kind = 0;
};

/** A range on a host-thread track: RangeKind 0 push/pop, 1 start/end, 2 mark. */
struct CodecRange {
  int64_t startNs = 0;
  int64_t endNs = 0;
  uint32_t track = 0;
  uint32_t nameId = 0;
  uint8_t depth = 0;
  uint8_t kind = 0;
  uint32_t domainId = 0;  // 0: no domain
};

/** A kernel's launch configuration (side-tables.ts launchConfigFields, in that order). */
struct CodecLaunch {
  uint32_t gridX = 0, gridY = 0, gridZ = 0;
  uint32_t blockX = 0, blockY = 0, blockZ = 0;
  uint32_t sharedMemBytes = 0;
  uint32_t registersPerThread = 0;
};

/** What an end batch states was sent (trace-decoder.ts EndCounts, in that order). */
struct CodecEndCounts {
  uint32_t strings = 0, devices = 0, processes = 0, tracks = 0;
  uint32_t launches = 0, ops = 0, flows = 0, ranges = 0;
};

constexpr uint32_t kBatchMagic = 0x31425353;  // 'SSB1'
constexpr uint8_t kCodecVersion = 1;
constexpr uint32_t kMaxRecordsPerBatch = 32768;

class CodecWriter {
 public:
  /** Strings batches for ids firstId, firstId+1, ... */
  void strings(uint32_t firstId, const std::vector<std::string>& values);
  /** Ops batches starting at op index firstIndex (split at kMaxRecordsPerBatch). */
  void ops(uint32_t firstIndex, const std::vector<CodecOp>& ops);
  /** Flows batches starting at flow index firstIndex. */
  void flows(uint32_t firstIndex, const std::vector<CodecFlow>& flows);
  /** Ranges batches starting at range index firstIndex. */
  void ranges(uint32_t firstIndex, const std::vector<CodecRange>& ranges);
  /** A meta batch: TraceMeta as JSON (structure-check.ts checkMeta). */
  void meta(const std::string& json);
  /** A structure batch: {firstDevice, devices, firstProcess, processes, firstTrack, tracks}. */
  void structure(const std::string& json);
  /** Launches batches starting at launch id firstId. */
  void launches(uint32_t firstId, const std::vector<CodecLaunch>& launches);
  /** The end batch: final counts, so a reader tells a whole stream from a truncated one. */
  void endOfStream(const CodecEndCounts& counts);

  const std::vector<uint8_t>& bytes() const { return out_; }
  std::vector<uint8_t> take();

 private:
  size_t begin(uint8_t kind, uint32_t count);
  void end(size_t at);
  void u8(uint8_t v) { out_.push_back(v); }
  void u16(uint16_t v);
  void u32(uint32_t v);
  void varint(uint64_t v);
  void zigzag(int64_t v);
  void utf8(const std::string& s);

  std::vector<uint8_t> out_;
};

}  // namespace streamscope
