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
#include <string>
#include <vector>

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
  std::string title;
  int64_t originRealtimeNs = 0;
  std::string createdAt;
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

// The trace's metadata; at exit a file's is written again with what was lost (same createdAt).
std::string metaJson(const std::string& title, int64_t originNs, const std::string& createdAt,
                     const std::vector<std::string>& warnings = {}) {
  std::string producer = "streamscope-profile 0.1";
  uint32_t version = cuptiVersion();
  if (version != 0) producer += " (CUPTI API " + std::to_string(version) + ")";
  std::string json = "{\"title\":" + jsonQuote(title) + ",\"sourceFormat\":\"streamscope-cuda\",\"producer\":" +
                     jsonQuote(producer) + ",\"timingMethod\":\"cupti\",\"originNs\":\"" + std::to_string(originNs) +
                     "\",\"createdAt\":\"" + createdAt + "\"";
  if (!warnings.empty()) {
    json += ",\"warnings\":[";
    for (size_t i = 0; i < warnings.size(); i++) json += (i > 0 ? "," : "") + jsonQuote(warnings[i]);
    json += "]";
  }
  return json + "}";
}

// What this process lost, counted where it was lost (the sink's and recorder's bounds, CUPTI).
struct Losses {
  uint64_t dropped = 0;         // records (ops, ranges, API calls) not kept
  uint64_t cuptiDropped = 0;
  uint64_t incomplete = 0;
  uint64_t flowsDropped = 0;    // arrows not drawn
  uint64_t detailsDropped = 0;  // names, launch configs, thread nesting, lane descriptions
};

Losses losses() {
  SinkCounts s = g->sink->counts();
  RecorderCounts r = g->recorder->counts();
  Losses l;
  // API calls a full per-thread ring turned away count with the records the sink's cap dropped.
  l.dropped = s.dropped + r.dropped + apiCallsDropped();
  l.cuptiDropped = r.cuptiDropped;
  l.incomplete = r.incomplete;
  l.flowsDropped = s.flowsDropped + r.flowsDropped;
  l.detailsDropped = s.namesDropped + r.detailsDropped;
  return l;
}

// The run's warnings, worded as the server words a process's bye (profile-run.ts), for a file.
std::vector<std::string> lossLines(const Losses& l) {
  std::vector<std::string> lines;
  auto add = [&lines](uint64_t n, const char* what) {
    if (n > 0) lines.push_back(std::to_string(n) + what);
  };
  add(l.dropped, " records dropped at the collector's memory cap");
  add(l.cuptiDropped, " records dropped by CUPTI (its buffers were full)");
  add(l.incomplete, " GPU records had not finished when the process exited");
  add(l.flowsDropped, " flows dropped at the collector's bounds (arrows not drawn)");
  add(l.detailsDropped, " names, launch configurations or lane details dropped at the collector's bounds");
  return lines;
}

// The closing report's fields: what was recorded and what was lost, so the run can say so.
std::string reportFields(const std::string& error) {
  Losses l = losses();
  std::string fields = "\"ops\":" + std::to_string(g->sink->counts().opsOut) +
                       ",\"dropped\":" + std::to_string(l.dropped) +
                       ",\"cuptiDropped\":" + std::to_string(l.cuptiDropped) +
                       ",\"refusedBuffers\":" + std::to_string(cuptiRefusedBuffers()) +
                       ",\"incomplete\":" + std::to_string(l.incomplete) +
                       ",\"flowsDropped\":" + std::to_string(l.flowsDropped) +
                       ",\"detailsDropped\":" + std::to_string(l.detailsDropped);
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
RecordSink* collectorSink() { return g != nullptr ? g->sink.get() : nullptr; }
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
    g->title = g->config.title.empty() ? name + " (pid " + std::to_string(g->pid) + ")" : g->config.title;
    g->originRealtimeNs = originRealtime;
    g->sink = std::make_unique<RecordSink>(g->originNs, 1, g->config.maxQueuedRecords);
    g->createdAt = isoNow();
    g->sink->setMeta(metaJson(g->title, originRealtime, g->createdAt));
    g->recorder = std::make_unique<ProfileRecorder>(*g->sink, static_cast<uint32_t>(g->pid), name, g->config.rank);
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
  if (g->transport->writesFile()) {
    // The file is the whole record of this run: its metadata says what was lost (the last meta
    // batch replaces the first), and so does the line that names it.
    std::vector<std::string> lines = lossLines(losses());
    std::string text;
    for (const std::string& line : lines) text += (text.empty() ? "" : "; ") + line;
    if (!lines.empty()) g->sink->setMeta(metaJson(g->title, g->originRealtimeNs, g->createdAt, lines));
    g->transport->noteLosses(text);
  }
  std::vector<uint8_t> bytes = g->sink->drain(true);
  CodecEndCounts end = g->recorder->endCounts();
  std::string problem = g->transport->finish(std::move(bytes), end, reportFields(""), kExitDeliveryMs);
  if (!problem.empty()) say(problem);
}

}  // namespace streamscope
