#include "inject-collector.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>

#include "clock.h"
#include "cupti-api.h"
#include "cupti-session.h"
#include "inject-api-calls.h"
#include "inject-config.h"
#include "inject-json.h"
#include "inject-transport.h"

namespace streamscope {

namespace {

constexpr int kExitDeliveryMs = 5000;

struct Collector {
  InjectConfig config;
  pid_t pid = 0;
  int64_t originNs = 0;
  std::unique_ptr<RecordSink> sink;
  std::unique_ptr<ProfileRecorder> recorder;
  std::unique_ptr<Transport> transport;
  std::atomic<bool> disabled{false};
  std::atomic<bool> forked{false};
  bool finished = false;
  std::mutex drainMutex;  // the flush thread and exit never drain at once
};

// Leaked on purpose: it must outlive every static destructor that might still run CUDA.
Collector* g = nullptr;
std::once_flag startOnce;
bool started = false;

void say(const std::string& line) {
  std::fprintf(stderr, "streamscope profile (pid %d): %s\n", static_cast<int>(getpid()), line.c_str());
}

std::string processName() {
  std::ifstream in("/proc/self/comm");
  std::string name;
  std::getline(in, name);
  return name.empty() ? "process" : name;
}

std::string instanceId() {
  std::random_device rd;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%08x%08x", rd(), rd());
  return buf;
}

int64_t realtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

std::string isoNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string metaJson(const std::string& title, int64_t originNs) {
  std::string producer = "streamscope-profile 0.1";
  uint32_t version = cuptiVersion();
  if (version != 0) producer += " (CUPTI API " + std::to_string(version) + ")";
  return "{\"title\":" + jsonQuote(title) + ",\"sourceFormat\":\"streamscope-cuda\",\"producer\":" + jsonQuote(producer) +
         ",\"timingMethod\":\"cupti\",\"originNs\":\"" + std::to_string(originNs) + "\",\"createdAt\":\"" + isoNow() +
         "\"}";
}

// The closing report's fields: what was recorded and what was lost, so the run can say so.
std::string reportFields(const std::string& error) {
  SinkCounts s = g->sink->counts();
  RecorderCounts r = g->recorder->counts();
  // API calls a full per-thread ring turned away count with the records the sink's cap dropped.
  uint64_t dropped = s.dropped + apiCallsDropped();
  std::string fields = "\"ops\":" + std::to_string(s.opsOut) + ",\"dropped\":" + std::to_string(dropped) +
                       ",\"cuptiDropped\":" + std::to_string(r.cuptiDropped) +
                       ",\"refusedBuffers\":" + std::to_string(cuptiRefusedBuffers()) +
                       ",\"incomplete\":" + std::to_string(r.incomplete);
  if (!error.empty()) fields += ",\"error\":" + jsonQuote(error);
  return fields;
}

void disable(const std::string& why) {
  if (g->disabled.exchange(true)) return;
  say(why + "; collection stopped, the program runs on");
  cuptiStopProfile();
}

// Flush thread or exit, under drainMutex: the API calls our callback put in the threads' rings.
void drainApi() {
  static std::vector<ApiCallRecord>& calls = *new std::vector<ApiCallRecord>;  // reused; never destroyed
  calls.clear();
  if (drainApiCalls(calls) > 0) g->recorder->onApiCalls(calls);
}

void onForkChild() {
  // CUDA does not survive fork; a child that execs loads a fresh collector and joins the run.
  if (g == nullptr) return;
  g->forked.store(true);
  if (g->transport) g->transport->abandon();
}

}  // namespace

ProfileActivities profileActivitiesOf(const InjectConfig& config) {
  ProfileActivities what;
  what.nvtx = config.nvtx;
  what.everyApiCall = config.everyApiCall;
  what.driverApi = config.driverApi;
  what.bufferBytes = config.bufferBytes;
  what.maxBufferBytes = config.cuptiInFlightBytes;
  what.cudaEvents = config.cudaEvents;
  what.pendingQueries = config.pendingQueries;
  what.pinnedDeviceBuffers = config.pinnedDeviceBuffers;
  what.offKinds = config.offKinds;
  if (config.apiCallback) what.apiCallback = apiCallCallback;
  return what;
}

const InjectConfig* collectorConfig() { return g != nullptr ? &g->config : nullptr; }

ProfileRecorder* collectorRecorder() { return g != nullptr ? g->recorder.get() : nullptr; }
int64_t collectorOriginNs() { return g != nullptr ? g->originNs : 0; }

bool collectorStart(bool withCupti) {
  std::call_once(startOnce, [withCupti] {
    g = new Collector();
    g->pid = getpid();
    std::string error = readInjectConfig(g->config);
    if (!error.empty()) {
      say(error + "; collection is off, the program runs on");
      return;
    }
    // Timestamps: CUPTI's clock, the one its activity records use.
    bool cuptiLoaded = withCupti && cuptiApi().loaded();
    useCuptiClock(cuptiLoaded);
    if (withCupti && !cuptiLoaded) {
      say("CUPTI unavailable: " + cuptiApi().error + "; collection is off, the program runs on");
      return;
    }
    // Time 0 is the CLI's spawn (CLOCK_REALTIME, shared by every process of the program), else
    // now. Records are made relative to that instant in CUPTI's clock; the run is told it in
    // CLOCK_REALTIME, the clock its other processes and the server agree on.
    int64_t now = hostNowNs();
    int64_t realNow = realtimeNs();
    int64_t originRealtime = g->config.originRealtimeNs > 0 ? g->config.originRealtimeNs : realNow;
    g->originNs = now - (realNow - originRealtime);
    std::string name = processName();
    std::string title = g->config.title.empty() ? name + " (pid " + std::to_string(g->pid) + ")" : g->config.title;
    g->sink = std::make_unique<RecordSink>(g->originNs, 1, g->config.maxQueuedRecords);
    g->sink->setMeta(metaJson(title, originRealtime));
    g->recorder = std::make_unique<ProfileRecorder>(*g->sink, static_cast<uint32_t>(g->pid), name);
    ProcessHello hello{static_cast<uint32_t>(g->pid), static_cast<uint32_t>(getppid()), name, g->config.title,
                       instanceId(), originRealtime};
    g->transport = openTransport(g->config, hello, error);
    if (!g->transport) {
      say(error + "; collection is off, the program runs on");
      return;
    }
    if (withCupti) {
      error = cuptiStartProfile(profileActivitiesOf(g->config));
      if (!error.empty()) {
        // Usually another profiler (nsys, torch.profiler) holding CUPTI: tell the run, then stay off.
        std::string why = "CUPTI unavailable: " + error;
        g->transport->finish({}, g->recorder->endCounts(), reportFields(why), 1000);
        say(why + "; collection is off, the program runs on");
        return;
      }
      cuptiDeferHandOver(!g->config.handOverInline);
      cuptiAttachHandler(g->recorder.get(), g->config.flushIntervalMs, collectorAfterFlush);
    }
    std::atexit(collectorExit);
    pthread_atfork(nullptr, nullptr, onForkChild);
    started = true;
  });
  return started;
}

void collectorAfterFlush() {
  if (g == nullptr || g->disabled.load() || g->forked.load()) return;
  std::lock_guard<std::mutex> lock(g->drainMutex);
  drainApi();
  g->recorder->tick(false);
  std::string failure = g->transport->failure();
  if (!failure.empty()) {
    disable(failure);
    return;
  }
  // A full transport (the server away) leaves records in the sink, which caps and counts them.
  if (!g->transport->canAccept()) return;
  std::vector<uint8_t> bytes = g->sink->drain(false);
  if (!bytes.empty()) g->transport->push(std::move(bytes));
}

void collectorExit() {
  if (g == nullptr || !started || g->forked.load() || getpid() != g->pid) return;
  // Our flush thread stops before exit tears the process down (a collector that turned itself
  // off left it running); a forced flush hands over what CUPTI still holds.
  cuptiFinishProfile();
  if (g->disabled.load()) return;
  std::lock_guard<std::mutex> lock(g->drainMutex);
  if (g->finished) return;
  g->finished = true;
  drainApi();
  g->recorder->tick(true);
  std::vector<uint8_t> bytes = g->sink->drain(true);
  CodecEndCounts end = g->recorder->endCounts();
  std::string problem = g->transport->finish(std::move(bytes), end, reportFields(""), kExitDeliveryMs);
  if (!problem.empty()) say(problem);
}

}  // namespace streamscope
