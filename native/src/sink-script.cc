#include "sink-script.h"

#include <cstring>
#include <vector>

#include "record-sink.h"

namespace streamscope {

namespace {

// Every step is kStride numbers: a code, then its arguments (unused ones are 0).
constexpr size_t kStride = 7;
enum Step : int {
  kIssue = 1,  // correlation, track, event (-1 none), nameId
  kApi = 2,    // startNs, endNs, track, nameId, correlation
  kWait = 3,   // track, nameId, event, apiStartNs, onHost: waits named by the last kApi step's op
  kGpu = 4,    // correlation, kind, startNs, endNs, deviceId, nameId (CUPTI's kernel name)
  kDrain = 5,  // final (0 or 1)
  kCollective = 6,  // correlation A, correlation B, track of device 0, track of device 1, nameId
};

}  // namespace

Napi::Value SinkScript(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Float64Array steps = info[0].As<Napi::Float64Array>();
  RecordSink sink(0, 1, 1u << 20);
  std::vector<uint8_t> bytes;
  uint32_t lastApiOp = WaitLinker::kNone;
  for (size_t i = 0; i + kStride <= steps.ElementLength(); i += kStride) {
    const double* s = steps.Data() + i;
    auto u32 = [s](int k) { return static_cast<uint32_t>(s[k]); };
    auto i64 = [s](int k) { return static_cast<int64_t>(s[k]); };
    switch (static_cast<int>(s[0])) {
      case kIssue:
        sink.issued(u32(1), IssuedOp{u32(2), u32(4), kNoRef, 0, false, -1, static_cast<int32_t>(s[3])});
        break;
      case kApi:
        lastApiOp = sink.pushOp(i64(1), i64(2), u32(3), kApiCall, u32(4), u32(5));
        break;
      case kWait:
        sink.waitIssued(WaitIssue{u32(1), u32(2), static_cast<int32_t>(s[3]), i64(4), lastApiOp, s[5] != 0});
        break;
      case kGpu: {
        GpuRecord r;
        r.correlationId = u32(1);
        r.kind = static_cast<uint8_t>(s[2]);
        r.startNs = i64(3);
        r.endNs = i64(4);
        r.deviceId = static_cast<int32_t>(s[5]);
        r.nameId = u32(6);
        sink.pushGpu({r});
        break;
      }
      case kCollective:
        sink.issuedOnDevices({u32(1), u32(2)}, u32(5), {{0, u32(3)}, {1, u32(4)}});
        break;
      case kDrain: {
        std::vector<uint8_t> out = sink.drain(s[1] != 0);
        bytes.insert(bytes.end(), out.begin(), out.end());
        break;
      }
      default:
        throw Napi::Error::New(env, "sinkScript: unknown step " + std::to_string(s[0]) + " at " +
                                        std::to_string(i / kStride));
    }
  }
  SinkCounts counts = sink.counts();
  Napi::Object o = Napi::Object::New(env);
  Napi::Uint8Array out = Napi::Uint8Array::New(env, bytes.size());
  if (!bytes.empty()) std::memcpy(out.Data(), bytes.data(), bytes.size());
  o.Set("bytes", out);
  o.Set("unresolvedWaits", static_cast<double>(counts.unresolvedWaits));
  o.Set("unmatched", static_cast<double>(counts.unmatched));
  return o;
}

}  // namespace streamscope
