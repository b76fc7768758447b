#include "codec-writer.h"

#include <algorithm>

namespace streamscope {

namespace {
constexpr uint8_t kBatchMeta = 1;
constexpr uint8_t kBatchStrings = 2;
constexpr uint8_t kBatchStructure = 3;
constexpr uint8_t kBatchLaunches = 4;
constexpr uint8_t kBatchOps = 5;
constexpr uint8_t kBatchFlows = 6;
constexpr uint8_t kBatchRanges = 7;
constexpr uint8_t kBatchEnd = 8;
constexpr size_t kHeaderBytes = 16;

// Field-presence bits of an op record (batch-format.ts OpField).
constexpr uint8_t kFieldBytes = 1;
constexpr uint8_t kFieldMemKinds = 2;
constexpr uint8_t kFieldCorrelation = 4;
constexpr uint8_t kFieldRef = 8;
constexpr uint8_t kFieldFlags = 16;
constexpr uint8_t kFieldSameTrack = 32;
constexpr uint32_t kNoRef = 0xffffffffu;
}  // namespace

void CodecWriter::u16(uint16_t v) {
  u8(static_cast<uint8_t>(v & 0xff));
  u8(static_cast<uint8_t>(v >> 8));
}

void CodecWriter::u32(uint32_t v) {
  for (int i = 0; i < 4; i++) {
    u8(static_cast<uint8_t>((v >> (8 * i)) & 0xff));
  }
}

void CodecWriter::varint(uint64_t v) {
  while (v >= 0x80) {
    u8(static_cast<uint8_t>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  u8(static_cast<uint8_t>(v));
}

void CodecWriter::zigzag(int64_t v) {
  // Same mapping as the TS writer: v >= 0 -> 2v, v < 0 -> -2v - 1.
  varint(v >= 0 ? static_cast<uint64_t>(v) * 2 : static_cast<uint64_t>(-(v + 1)) * 2 + 1);
}

void CodecWriter::utf8(const std::string& s) {
  varint(s.size());
  out_.insert(out_.end(), s.begin(), s.end());
}

size_t CodecWriter::begin(uint8_t kind, uint32_t count) {
  size_t at = out_.size();
  u32(kBatchMagic);
  u8(kCodecVersion);
  u8(kind);
  u16(0);
  u32(count);
  u32(0);  // payload length, patched by end()
  return at;
}

void CodecWriter::end(size_t at) {
  uint32_t payload = static_cast<uint32_t>(out_.size() - at - kHeaderBytes);
  for (int i = 0; i < 4; i++) {
    out_[at + 12 + i] = static_cast<uint8_t>((payload >> (8 * i)) & 0xff);
  }
}

void CodecWriter::strings(uint32_t firstId, const std::vector<std::string>& values) {
  for (size_t first = 0; first < values.size(); first += kMaxRecordsPerBatch) {
    size_t last = std::min(values.size(), first + kMaxRecordsPerBatch);
    size_t at = begin(kBatchStrings, static_cast<uint32_t>(last - first));
    varint(firstId + first);
    for (size_t i = first; i < last; i++) {
      utf8(values[i]);
    }
    end(at);
  }
}

void CodecWriter::ops(uint32_t firstIndex, const std::vector<CodecOp>& ops) {
  for (size_t first = 0; first < ops.size(); first += kMaxRecordsPerBatch) {
    size_t last = std::min(ops.size(), first + kMaxRecordsPerBatch);
    size_t at = begin(kBatchOps, static_cast<uint32_t>(last - first));
    varint(firstIndex + first);
    int64_t prevStartNs = 0;
    int64_t prevCorrelation = 0;
    int64_t prevTrack = -1;
    for (size_t i = first; i < last; i++) {
      const CodecOp& op = ops[i];
      uint8_t mask = 0;
      if (op.bytes != 0) mask |= kFieldBytes;
      if (op.memKinds != 0) mask |= kFieldMemKinds;
      if (op.correlationId != 0) mask |= kFieldCorrelation;
      if (op.refId != kNoRef) mask |= kFieldRef;
      if (op.flags != 0) mask |= kFieldFlags;
      if (static_cast<int64_t>(op.track) == prevTrack) mask |= kFieldSameTrack;
      u8(op.kind);
      u8(mask);
      if (static_cast<int64_t>(op.track) != prevTrack) {
        varint(op.track);
        prevTrack = op.track;
      }
      zigzag(op.startNs - prevStartNs);
      prevStartNs = op.startNs;
      varint(static_cast<uint64_t>(std::max<int64_t>(0, op.endNs - op.startNs)));
      varint(op.nameId);
      if (op.bytes != 0) varint(op.bytes);
      if (op.memKinds != 0) u8(op.memKinds);
      if (op.correlationId != 0) {
        zigzag(static_cast<int64_t>(op.correlationId) - prevCorrelation);
        prevCorrelation = op.correlationId;
      }
      if (op.refId != kNoRef) varint(op.refId);
      if (op.flags != 0) u8(op.flags);
    }
    end(at);
  }
}

void CodecWriter::flows(uint32_t firstIndex, const std::vector<CodecFlow>& flows) {
  for (size_t first = 0; first < flows.size(); first += kMaxRecordsPerBatch) {
    size_t last = std::min(flows.size(), first + kMaxRecordsPerBatch);
    size_t at = begin(kBatchFlows, static_cast<uint32_t>(last - first));
    varint(firstIndex + first);
    for (size_t i = first; i < last; i++) {
      u8(flows[i].kind);
      varint(flows[i].fromOp);
      zigzag(static_cast<int64_t>(flows[i].toOp) - static_cast<int64_t>(flows[i].fromOp));
    }
    end(at);
  }
}

void CodecWriter::ranges(uint32_t firstIndex, const std::vector<CodecRange>& ranges) {
  for (size_t first = 0; first < ranges.size(); first += kMaxRecordsPerBatch) {
    size_t last = std::min(ranges.size(), first + kMaxRecordsPerBatch);
    size_t at = begin(kBatchRanges, static_cast<uint32_t>(last - first));
    varint(firstIndex + first);
    int64_t prevStartNs = 0;
    for (size_t i = first; i < last; i++) {
      const CodecRange& r = ranges[i];
      u8(r.kind);
      varint(r.track);
      zigzag(r.startNs - prevStartNs);
      prevStartNs = r.startNs;
      varint(static_cast<uint64_t>(std::max<int64_t>(0, r.endNs - r.startNs)));
      varint(r.nameId);
      varint(r.domainId);
      u8(r.depth);
    }
    end(at);
  }
}

void CodecWriter::meta(const std::string& json) {
  size_t at = begin(kBatchMeta, 1);
  utf8(json);
  end(at);
}

void CodecWriter::structure(const std::string& json) {
  // The record count is informational for structure batches; the JSON carries the items.
  size_t at = begin(kBatchStructure, 1);
  utf8(json);
  end(at);
}

void CodecWriter::launches(uint32_t firstId, const std::vector<CodecLaunch>& launches) {
  for (size_t first = 0; first < launches.size(); first += kMaxRecordsPerBatch) {
    size_t last = std::min(launches.size(), first + kMaxRecordsPerBatch);
    size_t at = begin(kBatchLaunches, static_cast<uint32_t>(last - first));
    varint(firstId + first);
    for (size_t i = first; i < last; i++) {
      const CodecLaunch& l = launches[i];
      for (uint32_t v : {l.gridX, l.gridY, l.gridZ, l.blockX, l.blockY, l.blockZ, l.sharedMemBytes,
                         l.registersPerThread}) {
        varint(v);
      }
    }
    end(at);
  }
}

void CodecWriter::endOfStream(const CodecEndCounts& c) {
  size_t at = begin(kBatchEnd, 8);
  for (uint32_t v : {c.strings, c.devices, c.processes, c.tracks, c.launches, c.ops, c.flows, c.ranges}) {
    varint(v);
  }
  end(at);
}

std::vector<uint8_t> CodecWriter::take() {
  std::vector<uint8_t> result;
  result.swap(out_);
  return result;
}

}  // namespace streamscope
