// The JS surface (index.d.ts describes it): probe, start/drain/status/cancel for one run at a
// time, and copyBandwidth. Every Napi value is read or made here, on the main thread; the
// runner's threads only ever ring the doorbell.
#include <napi.h>

#include <cstring>
#include <memory>
#include <mutex>

#include "check.h"
#include "napi-fields.h"
#include "plan.h"
#include "probe.h"
#include "cupti-session.h"
#include "runner.h"
#include "sink-script.h"

namespace streamscope {

namespace {

/** A thread-safe function used only as a doorbell; safe to ring after the run released it. */
class Doorbell {
 public:
  Doorbell(Napi::Env env, Napi::Function callback) {
    tsfn_ = Napi::ThreadSafeFunction::New(env, callback, "streamscope-doorbell", 2, 1);
  }
  void ring() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!released_) tsfn_.NonBlockingCall();  // queue full: a ring is already pending, enough
  }
  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!released_) {
      released_ = true;
      tsfn_.Release();
    }
  }

 private:
  std::mutex mutex_;
  bool released_ = false;
  Napi::ThreadSafeFunction tsfn_;
};

std::unique_ptr<Runner> currentRun;
std::shared_ptr<Doorbell> currentDoorbell;
bool finalDrained = false;


std::vector<PlanOp> readOps(const Napi::Object& o, const std::string& where) {
  Napi::Value v = o.Get("ops");
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_float64_array) {
    throw NativeError(where + ".ops must be a Float64Array");
  }
  Napi::Float64Array a = v.As<Napi::Float64Array>();
  if (a.ElementLength() % kOpStride != 0) throw NativeError(where + ".ops length is not a multiple of 11");
  std::vector<PlanOp> ops(a.ElementLength() / kOpStride);
  for (size_t i = 0; i < ops.size(); i++) {
    const double* f = a.Data() + i * kOpStride;
    ops[i].code = static_cast<OpCode>(static_cast<int>(f[0]));
    ops[i].stream = static_cast<int>(f[1]);
    for (int k = 0; k < 7; k++) ops[i].a[k] = static_cast<int64_t>(f[2 + k]);
    ops[i].nameId = static_cast<uint32_t>(f[9]);
    ops[i].refId = f[10] < 0 ? kNoRef : static_cast<uint32_t>(f[10]);
  }
  return ops;
}

template <typename T>
void checkIndex(int64_t index, const std::vector<T>& table, const std::string& what) {
  if (index < 0 || static_cast<size_t>(index) >= table.size()) {
    throw NativeError(what + " " + std::to_string(index) + " does not exist");
  }
}

void checkOps(const Plan& plan, const std::vector<PlanOp>& ops, const std::string& where) {
  for (size_t i = 0; i < ops.size(); i++) {
    const PlanOp& op = ops[i];
    std::string at = where + ".ops[" + std::to_string(i) + "]";
    if (static_cast<int>(op.code) < 1 || static_cast<int>(op.code) > kMaxOpCode) throw NativeError(at + ": unknown op code");
    checkIndex(op.stream, plan.streams, at + ": stream");
    switch (op.code) {
      case OpCode::Copy:
      case OpCode::PeerCopy:
        checkIndex(op.a[0], plan.buffers, at + ": buffer");
        checkIndex(op.a[1], plan.buffers, at + ": buffer");
        break;
      case OpCode::Memset:
      case OpCode::MallocAsync:
      case OpCode::FreeAsync:
      case OpCode::Malloc:
      case OpCode::Free:
        checkIndex(op.a[0], plan.buffers, at + ": buffer");
        break;
      case OpCode::EventRecord:
      case OpCode::StreamWait:
      case OpCode::EventSync:
      case OpCode::WaitRecorded:
        checkIndex(op.a[0], plan.events, at + ": event");
        break;
      case OpCode::GraphLaunch:
      case OpCode::GraphCapture:
        checkIndex(op.a[0], plan.graphs, at + ": graph");
        break;
      case OpCode::Collective:
        checkIndex(op.a[0], plan.collectives, at + ": collective");
        break;
      default:
        break;
    }
  }
}

Plan readPlan(const Napi::Object& o) {
  Plan plan;
  Napi::Array devices = arr(o, "devices");
  for (uint32_t i = 0; i < devices.Length(); i++) plan.devices.push_back(devices.Get(i).As<Napi::Number>().Int32Value());
  Napi::Array streams = arr(o, "streams");
  for (uint32_t i = 0; i < streams.Length(); i++) {
    Napi::Object s = streams.Get(i).As<Napi::Object>();
    int64_t type = num(s, "type");
    if (type < 0 || type > 3) throw NativeError("streams[" + std::to_string(i) + "].type must be 0..3");
    plan.streams.push_back(PlanStream{static_cast<int>(num(s, "device")), static_cast<StreamType>(type),
                                      static_cast<int>(num(s, "priority")), static_cast<uint32_t>(num(s, "track"))});
  }
  Napi::Array buffers = arr(o, "buffers");
  for (uint32_t i = 0; i < buffers.Length(); i++) {
    Napi::Object b = buffers.Get(i).As<Napi::Object>();
    int64_t kind = num(b, "kind");
    if (kind < 0 || kind > 3) throw NativeError("buffers[" + std::to_string(i) + "].kind must be 0..3");
    plan.buffers.push_back(PlanBuffer{static_cast<int>(num(b, "device")), static_cast<BufferKind>(kind),
                                      static_cast<uint64_t>(num(b, "bytes")), num(b, "deferred") != 0});
  }
  Napi::Array events = arr(o, "events");
  for (uint32_t i = 0; i < events.Length(); i++) {
    plan.events.push_back(PlanEvent{static_cast<int>(num(events.Get(i).As<Napi::Object>(), "device"))});
  }
  Napi::Array graphs = arr(o, "graphs");
  for (uint32_t i = 0; i < graphs.Length(); i++) {
    Napi::Object g = graphs.Get(i).As<Napi::Object>();
    plan.graphs.push_back(PlanGraph{static_cast<int>(num(g, "captureStream")), readOps(g, "graphs[" + std::to_string(i) + "]")});
  }
  Napi::Array threads = arr(o, "threads");
  for (uint32_t i = 0; i < threads.Length(); i++) {
    Napi::Object t = threads.Get(i).As<Napi::Object>();
    plan.threads.push_back(PlanThread{static_cast<uint32_t>(num(t, "track")), readOps(t, "threads[" + std::to_string(i) + "]")});
  }
  readCollectives(o, plan);
  for (const PlanStream& s : plan.streams) {
    bool known = false;
    for (int d : plan.devices) known = known || d == s.device;
    if (!known) throw NativeError("a stream uses device " + std::to_string(s.device) + ", which is not in plan.devices");
  }
  for (size_t g = 0; g < plan.graphs.size(); g++) {
    checkIndex(plan.graphs[g].captureStream, plan.streams, "graphs[" + std::to_string(g) + "].captureStream");
    checkOps(plan, plan.graphs[g].ops, "graphs[" + std::to_string(g) + "]");
  }
  for (size_t t = 0; t < plan.threads.size(); t++) checkOps(plan, plan.threads[t].ops, "threads[" + std::to_string(t) + "]");
  return plan;
}

const char* timingName(TimingMode m) {
  switch (m) {
    case TimingMode::Cupti: return "cupti";
    case TimingMode::Events: return "events";
    default: return "none";
  }
}

Napi::Value Probe(const Napi::CallbackInfo& info) { return probe(info.Env()); }

Napi::Value Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 3 || !info[0].IsObject() || !info[1].IsObject() || !info[2].IsFunction()) {
    throw Napi::TypeError::New(env, "start(plan, options, doorbell)");
  }
  if (currentRun && currentRun->state() == RunState::Running) {
    throw Napi::Error::New(env, "a run is already in progress in this process");
  }
  if (currentDoorbell) currentDoorbell->release();
  currentRun.reset();
  try {
    Plan plan = readPlan(info[0].As<Napi::Object>());
    Napi::Object o = info[1].As<Napi::Object>();
    RunOptions options;
    std::string timing = o.Get("timing").IsString() ? o.Get("timing").As<Napi::String>().Utf8Value() : "auto";
    options.timing = timing == "events" ? TimingMode::Events : timing == "none" ? TimingMode::None : TimingMode::Cupti;
    options.timingAuto = timing == "auto";
    options.flushIntervalMs = static_cast<int>(num(o, "flushIntervalMs", 10));
    options.firstStringId = static_cast<uint32_t>(num(o, "firstStringId", 1));
    options.maxQueuedRecords = static_cast<size_t>(num(o, "maxQueuedRecords", 4 << 20));
    currentRun = std::make_unique<Runner>(std::move(plan), options);
  } catch (const NativeError& e) {
    currentRun.reset();
    throw Napi::Error::New(env, e.what());
  }
  finalDrained = false;
  auto doorbell = std::make_shared<Doorbell>(env, info[2].As<Napi::Function>());
  currentDoorbell = doorbell;
  currentRun->start([doorbell] { doorbell->ring(); });
  Napi::Object result = Napi::Object::New(env);
  result.Set("originNs", std::to_string(currentRun->sink().originNs()));
  result.Set("timingMethod", timingName(currentRun->timing()));
  result.Set("timingNote", currentRun->timingNote());
  return result;
}

Napi::Value Drain(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!currentRun || finalDrained) return Napi::Uint8Array::New(env, 0);
  bool final = currentRun->state() != RunState::Running;
  std::vector<uint8_t> bytes = currentRun->sink().drain(final);
  if (final) {
    finalDrained = true;
    if (currentDoorbell) currentDoorbell->release();
  }
  Napi::Uint8Array out = Napi::Uint8Array::New(env, bytes.size());
  if (!bytes.empty()) std::memcpy(out.Data(), bytes.data(), bytes.size());
  return out;
}

Napi::Value Status(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  if (!currentRun) {
    o.Set("state", "idle");
    return o;
  }
  static const char* names[] = {"running", "finished", "cancelled", "failed"};
  o.Set("state", names[static_cast<int>(currentRun->state())]);
  o.Set("drained", finalDrained);
  std::string error = currentRun->error();
  if (!error.empty()) o.Set("error", error);
  SinkCounts c = currentRun->sink().counts();
  o.Set("opsOut", static_cast<double>(c.opsOut));
  o.Set("dropped", static_cast<double>(c.dropped));
  o.Set("unmatched", static_cast<double>(c.unmatched));
  o.Set("cuptiDropped", static_cast<double>(c.cuptiDropped));
  o.Set("beforeOrigin", static_cast<double>(c.beforeOrigin));
  o.Set("eventRecords", static_cast<double>(c.eventRecords));
  o.Set("unresolvedWaits", static_cast<double>(c.unresolvedWaits));
  o.Set("namesDropped", static_cast<double>(c.namesDropped));
  o.Set("cuptiNotes", cuptiNotes());
  o.Set("makespanNs", static_cast<double>(currentRun->makespanNs()));
  o.Set("timingMethod", timingName(currentRun->timing()));
  return o;
}

Napi::Value Cancel(const Napi::CallbackInfo& info) {
  if (currentRun) currentRun->cancel();
  return info.Env().Undefined();
}

Napi::Value CopyBandwidth(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "copyBandwidth(options)");
  Napi::Object o = info[0].As<Napi::Object>();
  try {
    std::string direction = o.Get("direction").As<Napi::String>().Utf8Value();
    double bps = copyBandwidth(static_cast<int>(num(o, "device", 0)), direction == "htod",
                               o.Get("pinned").ToBoolean().Value(), static_cast<size_t>(num(o, "bytes", 64 << 20)),
                               static_cast<int>(num(o, "reps", 10)));
    return Napi::Number::New(env, bps);
  } catch (const NativeError& e) {
    throw Napi::Error::New(env, e.what());
  }
}

// Codec cross-check: encodes given strings, ops (stride 10: startNs, endNs, track, kind, nameId,
// bytes, memKinds, correlationId, refId (-1 none), flags) and flows (stride 3: from, to, kind).
Napi::Value EncodeBatches(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = info[0].As<Napi::Object>();
  CodecWriter writer;
  std::vector<std::string> strings;
  Napi::Array s = arr(o, "strings");
  for (uint32_t i = 0; i < s.Length(); i++) strings.push_back(s.Get(i).As<Napi::String>().Utf8Value());
  writer.strings(static_cast<uint32_t>(num(o, "firstStringId", 1)), strings);
  Napi::Float64Array f = o.Get("ops").As<Napi::Float64Array>();
  std::vector<CodecOp> ops(f.ElementLength() / 10);
  for (size_t i = 0; i < ops.size(); i++) {
    const double* r = f.Data() + i * 10;
    ops[i] = CodecOp{static_cast<int64_t>(r[0]), static_cast<int64_t>(r[1]), static_cast<uint32_t>(r[2]),
                     static_cast<uint8_t>(r[3]), static_cast<uint32_t>(r[4]), static_cast<uint64_t>(r[5]),
                     static_cast<uint8_t>(r[6]), static_cast<uint32_t>(r[7]),
                     r[8] < 0 ? kNoRef : static_cast<uint32_t>(r[8]), static_cast<uint8_t>(r[9])};
  }
  writer.ops(static_cast<uint32_t>(num(o, "firstOp", 0)), ops);
  Napi::Float64Array g = o.Get("flows").As<Napi::Float64Array>();
  std::vector<CodecFlow> flows(g.ElementLength() / 3);
  for (size_t i = 0; i < flows.size(); i++) {
    const double* r = g.Data() + i * 3;
    flows[i] = CodecFlow{static_cast<uint32_t>(r[0]), static_cast<uint32_t>(r[1]), static_cast<uint8_t>(r[2])};
  }
  writer.flows(static_cast<uint32_t>(num(o, "firstFlow", 0)), flows);
  const std::vector<uint8_t>& bytes = writer.bytes();
  Napi::Uint8Array out = Napi::Uint8Array::New(env, bytes.size());
  if (!bytes.empty()) std::memcpy(out.Data(), bytes.data(), bytes.size());
  return out;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("encodeBatches", Napi::Function::New(env, EncodeBatches));
  exports.Set("sinkScript", Napi::Function::New(env, SinkScript));
  exports.Set("probe", Napi::Function::New(env, Probe));
  exports.Set("start", Napi::Function::New(env, Start));
  exports.Set("drain", Napi::Function::New(env, Drain));
  exports.Set("status", Napi::Function::New(env, Status));
  exports.Set("cancel", Napi::Function::New(env, Cancel));
  exports.Set("copyBandwidth", Napi::Function::New(env, CopyBandwidth));
  exports.Set("codecVersion", Napi::Number::New(env, kCodecVersion));
  return exports;
}

}  // namespace

}  // namespace streamscope

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) { return streamscope::Init(env, exports); }

NODE_API_MODULE(streamscope_native, InitAddon)
