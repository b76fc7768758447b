// The record codec's binary form, written natively (packages/trace/src/codec/batch-format.ts
// and trace-encoder.ts are the reference): 16-byte batch headers, LEB128 varints, zigzag deltas.
// Only the batches the addon produces: strings, ops, flows and ranges.
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

/** A push/pop range on a host-thread track (RangeKind 0). */
struct CodecRange {
  int64_t startNs = 0;
  int64_t endNs = 0;
  uint32_t track = 0;
  uint32_t nameId = 0;
  uint8_t depth = 0;
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
  /** Ranges batches starting at range index firstIndex (push/pop kind, no domain). */
  void ranges(uint32_t firstIndex, const std::vector<CodecRange>& ranges);

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
