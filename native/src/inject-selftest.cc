// A test surface for the injection collector with no GPU: a script of CUPTI-shaped records
// (built here as the real activity structs) goes through the real recorder, sink, codec and
// transport to whatever STREAMSCOPE_PROFILE_* names (the server's tests listen there).
//
// One step per line, times in ns after the collector's origin:
//   api runtime|driver CBID TID CORR START END      kernel DEV CTX STREAM CORR START END NAME [GRAPH]
//   memcpy KIND SRC DST BYTES DEV CTX STREAM CORR START END
//   memset BYTES MEMKIND DEV CTX STREAM CORR START END
//   sync TYPE CTX STREAM SYNCID CORR START END       event DEV CTX STREAM SYNCID CORR TIME
//   range-start ID TID TIME NAME   range-end ID TID TIME   mark TID TIME NAME
//   context CTX DEV NULLSTREAM   stream CTX STREAM PRIORITY FLAG   device ID SMS NAME
//   buffer (hand the records so far to the recorder as one CUPTI buffer)   flush   dropped N
//   activities (prints what CUPTI would be asked to collect under this process's settings)
//   sleep MS   wait-stop MS (until a SIGINT arrived: the server's stop, or the CLI's)   exit
//   flush-thread MS (the collector's own flush thread, as under CUPTI)
//   fork-exit (a child forked now leaves through exit(): it must end with status 0, not abort)
//   cb runtime|driver enter|exit CBID CORR (our API callback, as CUPTI calls it on this thread)
//   cb-burst N CBID CORR (N driver calls through the callback, correlation ids from CORR up)
//   event-pairs N CTX REC_STREAM WAIT_STREAM TID (N cudaEventRecord + cudaStreamWaitEvent pairs:
//     API, sync and event records in CUPTI's order, 256 pairs a buffer, the event records a
//     buffer late, a flush every buffer; sync ids and correlations from 1 up)
//   flood WHAT N (N records that push one bounded table past its bound: inject-selftest-floods.h)
//   footprint (prints each bounded table's entries held and its bound, and the resident KiB)
// A SIGINT is caught and, at the end, reported on stdout as a program would see it.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cupti-session.h"
#include "inject-api-calls.h"
#include "inject-collector.h"
#include "inject-selftest-floods.h"

#define SS_EXPORT extern "C" __attribute__((visibility("default")))

namespace streamscope {

namespace {

std::atomic<int> sigints{0};
void onSigint(int) { sigints++; }

class Script {
 public:
  explicit Script(int64_t originNs) : origin_(originNs) {}

  template <typename T>
  T& add(CUpti_ActivityKind kind) {
    storage_.emplace_back(new uint8_t[sizeof(T)]());
    T* r = reinterpret_cast<T*>(storage_.back().get());
    r->kind = kind;
    records_.push_back(reinterpret_cast<const CUpti_Activity*>(r));
    return *r;
  }
  const char* keep(const std::string& s) {
    strings_.push_back(s);
    return strings_.back().c_str();
  }
  uint64_t t(uint64_t relNs) const { return static_cast<uint64_t>(origin_) + relNs; }
  /** CUPTI's per-call slot shared by a call's entry and exit callbacks. */
  uint64_t* callData(uint64_t domain, uint64_t corr) { return &callData_[(domain << 32) | corr]; }
  void deliver() {
    if (!records_.empty()) collectorRecorder()->onRecords(records_);
    records_.clear();
  }

 private:
  int64_t origin_;
  std::vector<std::unique_ptr<uint8_t[]>> storage_;
  std::deque<std::string> strings_;
  std::vector<const CUpti_Activity*> records_;
  std::unordered_map<uint64_t, uint64_t> callData_;
};

// One entry or exit of a runtime or driver call, through the collector's API callback.
void callback(Script& s, CUpti_CallbackDomain domain, CUpti_ApiCallbackSite site, uint32_t cbid, uint32_t corr) {
  CUpti_CallbackData data{};
  data.callbackSite = site;
  data.correlationId = corr;
  data.correlationData = s.callData(domain, corr);
  apiCallCallback(nullptr, domain, cbid, &data);
}

// per_call's event case as CUPTI hands it over: each buffer holds a batch's API calls and stream
// waits, and the previous batch's event records (GPU timestamps complete later). Records live in
// one reused buffer, so 150k pairs take no more memory than 256.
void eventPairs(uint64_t pairs, uint32_t context, uint32_t recordStream, uint32_t waitStream, uint32_t tid) {
  constexpr uint64_t kBatch = 256;
  constexpr uint32_t kRecordCbid = 135;  // cudaEventRecord_v3020
  constexpr uint32_t kWaitCbid = 147;    // cudaStreamWaitEvent_v3020
  std::vector<CUpti_ActivityAPI> apis;
  std::vector<CUpti_ActivitySynchronization2> syncs;
  std::vector<CUpti_ActivityCudaEvent2> events;
  std::vector<CUpti_ActivityCudaEvent2> lateEvents;
  std::vector<const CUpti_Activity*> buffer;
  int64_t origin = collectorOriginNs();
  for (uint64_t first = 0; first < pairs || !lateEvents.empty(); first += kBatch) {
    apis.clear();
    syncs.clear();
    events.clear();
    for (uint64_t i = first; i < std::min(pairs, first + kBatch); i++) {
      auto t = static_cast<uint64_t>(origin) + 1000 + 40 * i;
      auto record = static_cast<uint32_t>(2 * i + 1);
      CUpti_ActivityAPI a{};
      a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
      a.threadId = tid;
      a.cbid = kRecordCbid;
      a.correlationId = record;
      a.start = t;
      a.end = t + 10;
      apis.push_back(a);
      a.cbid = kWaitCbid;
      a.correlationId = record + 1;
      a.start = t + 20;
      a.end = t + 30;
      apis.push_back(a);
      CUpti_ActivitySynchronization2 y{};
      y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
      y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
      y.contextId = context;
      y.streamId = waitStream;
      y.cudaEventSyncId = i + 1;
      y.correlationId = record + 1;
      y.start = t + 20;
      y.end = t + 30;
      syncs.push_back(y);
      CUpti_ActivityCudaEvent2 e{};
      e.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
      e.contextId = context;
      e.streamId = recordStream;
      e.cudaEventSyncId = i + 1;
      e.correlationId = record;
      e.deviceTimestamp = t + 500;
      events.push_back(e);
    }
    buffer.clear();
    for (const auto& a : apis) buffer.push_back(reinterpret_cast<const CUpti_Activity*>(&a));
    for (const auto& y : syncs) buffer.push_back(reinterpret_cast<const CUpti_Activity*>(&y));
    for (const auto& e : lateEvents) buffer.push_back(reinterpret_cast<const CUpti_Activity*>(&e));
    if (!buffer.empty()) collectorRecorder()->onRecords(buffer);
    collectorAfterFlush();
    lateEvents.swap(events);
  }
}

// DEV CTX STREAM CORR START END: where a kernel, copy or memset ran and when.
template <typename T, typename Next>
void readPlaced(T& r, const Script& s, Next u) {
  r.deviceId = static_cast<uint32_t>(u());
  r.contextId = static_cast<uint32_t>(u());
  r.streamId = static_cast<uint32_t>(u());
  r.correlationId = static_cast<uint32_t>(u());
  r.start = s.t(u());
  r.end = s.t(u());
}

// CTX STREAM SYNCID CORR: the event a sync or an event record is about.
template <typename T, typename Next>
void readSynced(T& r, Next u) {
  r.contextId = static_cast<uint32_t>(u());
  r.streamId = static_cast<uint32_t>(u());
  r.cudaEventSyncId = u();
  r.correlationId = static_cast<uint32_t>(u());
}

// Runs one step; returns "" or what is wrong with it.
std::string step(Script& s, std::istringstream& in, const std::string& op) {
  auto u = [&in]() {
    uint64_t v = 0;
    in >> v;
    return v;
  };
  if (op == "api") {
    std::string domain;
    in >> domain;
    auto& a = s.add<CUpti_ActivityAPI>(domain == "driver" ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME);
    a.cbid = static_cast<CUpti_CallbackId>(u());
    a.threadId = static_cast<uint32_t>(u());
    a.correlationId = static_cast<uint32_t>(u());
    a.start = s.t(u());
    a.end = s.t(u());
  } else if (op == "kernel") {
    auto& k = s.add<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    readPlaced(k, s, u);
    std::string name;
    in >> name;
    k.name = s.keep(name);
    k.graphId = static_cast<uint32_t>(u());
    k.gridX = k.gridY = k.gridZ = 1;
    k.blockX = 128;
    k.blockY = k.blockZ = 1;
  } else if (op == "memcpy") {
    auto& m = s.add<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
    m.copyKind = static_cast<uint8_t>(u());
    m.srcKind = static_cast<uint8_t>(u());
    m.dstKind = static_cast<uint8_t>(u());
    m.bytes = u();
    readPlaced(m, s, u);
  } else if (op == "memset") {
    auto& m = s.add<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
    m.bytes = u();
    m.memoryKind = static_cast<uint16_t>(u());
    readPlaced(m, s, u);
  } else if (op == "sync") {
    auto& y = s.add<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    y.type = static_cast<CUpti_ActivitySynchronizationType>(u());
    readSynced(y, u);
    y.start = s.t(u());
    y.end = s.t(u());
  } else if (op == "event") {
    auto& e = s.add<CUpti_ActivityCudaEvent2>(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
    e.deviceId = static_cast<uint32_t>(u());
    readSynced(e, u);
    e.deviceTimestamp = s.t(u());
  } else if (op == "range-start" || op == "range-end" || op == "mark") {
    auto& m = s.add<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
    m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    if (op != "mark") m.id = static_cast<uint32_t>(u());
    m.objectId.pt.threadId = static_cast<uint32_t>(u());
    m.timestamp = s.t(u());
    m.flags = op == "mark" ? CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS
              : op == "range-start" ? CUPTI_ACTIVITY_FLAG_MARKER_START
                                    : CUPTI_ACTIVITY_FLAG_MARKER_END;
    if (op != "range-end") {
      std::string name;
      in >> name;
      m.name = s.keep(name);
    }
  } else if (op == "context") {
    auto& c = s.add<CUpti_ActivityContext3>(CUPTI_ACTIVITY_KIND_CONTEXT);
    c.contextId = static_cast<uint32_t>(u());
    c.deviceId = static_cast<uint32_t>(u());
    c.nullStreamId = static_cast<uint16_t>(u());
  } else if (op == "stream") {
    auto& st = s.add<CUpti_ActivityStream>(CUPTI_ACTIVITY_KIND_STREAM);
    st.contextId = static_cast<uint32_t>(u());
    st.streamId = static_cast<uint32_t>(u());
    st.priority = static_cast<uint32_t>(u());
    st.flag = static_cast<CUpti_ActivityStreamFlag>(u());
  } else if (op == "device") {
    auto& d = s.add<CUpti_ActivityDevice5>(CUPTI_ACTIVITY_KIND_DEVICE);
    d.id = static_cast<uint32_t>(u());
    d.numMultiprocessors = static_cast<uint32_t>(u());
    std::string name;
    in >> name;
    d.name = s.keep(name);
  } else if (op == "buffer") {
    s.deliver();
  } else if (op == "flush") {
    s.deliver();
    collectorAfterFlush();
  } else if (op == "flush-thread") {
    s.deliver();
    cuptiAttachHandler(collectorRecorder(), static_cast<int>(u()), collectorAfterFlush);
  } else if (op == "fork-exit") {
    pid_t child = fork();
    if (child == 0) std::exit(0);  // atexit handlers and static destructors run in the child
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      return "the forked child ended with wait status " + std::to_string(status);
    }
  } else if (op == "cb") {
    std::string domain;
    std::string site;
    in >> domain >> site;
    auto cbid = static_cast<uint32_t>(u());
    auto corr = static_cast<uint32_t>(u());
    if ((domain != "runtime" && domain != "driver") || (site != "enter" && site != "exit")) {
      return "cb takes runtime|driver enter|exit CBID CORR";
    }
    callback(s, domain == "driver" ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API,
             site == "enter" ? CUPTI_API_ENTER : CUPTI_API_EXIT, cbid, corr);
  } else if (op == "cb-burst") {
    uint64_t n = u();
    auto cbid = static_cast<uint32_t>(u());
    auto corr = static_cast<uint32_t>(u());
    for (uint32_t i = 0; i < n; i++) {
      callback(s, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_API_ENTER, cbid, corr + i);
      callback(s, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_API_EXIT, cbid, corr + i);
    }
  } else if (op == "event-pairs") {
    uint64_t pairs = u();
    auto context = static_cast<uint32_t>(u());
    auto recordStream = static_cast<uint32_t>(u());
    auto waitStream = static_cast<uint32_t>(u());
    auto tid = static_cast<uint32_t>(u());
    if (in.fail()) return "event-pairs takes N CTX REC_STREAM WAIT_STREAM TID";
    s.deliver();
    eventPairs(pairs, context, recordStream, waitStream, tid);
  } else if (op == "flood") {
    std::string what;
    in >> what;
    uint64_t n = u();
    if (in.fail()) return "flood takes WHAT N";
    s.deliver();
    std::string error = flood(what, n);
    if (!error.empty()) return error;
  } else if (op == "footprint") {
    s.deliver();
    printFootprint();
  } else if (op == "dropped") {
    collectorRecorder()->onCuptiDropped(u());
  } else if (op == "sleep") {
    std::this_thread::sleep_for(std::chrono::milliseconds(u()));
  } else if (op == "wait-stop") {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(u());
    while (sigints.load() == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (sigints.load() == 0) return "no SIGINT arrived";
  } else if (op == "activities") {
    // What CUPTI would be asked for under this process's settings (the collector's defaults).
    ProfileActivities a = profileActivitiesOf(*collectorConfig());
    std::printf("activities cudaEvents=%d nvtx=%d driverApi=%d everyApiCall=%d pendingQueries=%d cuptiMiB=%zu\n",
                a.cudaEvents ? 1 : 0, a.nvtx ? 1 : 0, a.driverApi ? 1 : 0, a.everyApiCall ? 1 : 0,
                a.pendingQueries ? 1 : 0, a.maxBufferBytes >> 20);
  } else if (op == "exit") {
    s.deliver();
    collectorExit();
  } else {
    return "unknown step '" + op + "'";
  }
  return in.fail() && op != "kernel" ? "missing or bad arguments" : "";
}

}  // namespace

}  // namespace streamscope

/**
 * Runs a script (see the top of this file); returns 0, or 1 after printing the failing line.
 * The collector starts without CUPTI; everything after the records is the real path.
 */
SS_EXPORT int StreamscopeInjectSelfTest(const char* script) {
  using namespace streamscope;
  struct sigaction sa {};
  sa.sa_handler = onSigint;
  sigaction(SIGINT, &sa, nullptr);
  int status = 0;
  if (!collectorStart(false)) return 2;
  Script s(collectorOriginNs());
  std::istringstream lines(script);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    number++;
    std::istringstream in(line);
    std::string op;
    if (!(in >> op) || op[0] == '#') continue;
    std::string error = step(s, in, op);
    if (!error.empty()) {
      std::fprintf(stderr, "self-test line %d (%s): %s\n", number, line.c_str(), error.c_str());
      status = 1;
      break;
    }
  }
  s.deliver();
  collectorExit();
  if (sigints.load() > 0) std::printf("SIGINT received\n");
  std::fflush(stdout);
  return status;
}
