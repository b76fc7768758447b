#include "inject-config.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

#include "cupti-session.h"

namespace streamscope {

namespace {

std::string text(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

// A 0/1 switch; "" when unset or valid, else what is wrong with it.
std::string flag(const char* name, bool& out) {
  std::string v = text(name);
  if (v.empty()) return "";
  if (v != "0" && v != "1") return std::string(name) + "='" + v + "' must be 0 or 1";
  out = v == "1";
  return "";
}

// An integer variable in [min, max]; "" when unset or valid, else what is wrong with it.
std::string integer(const char* name, int64_t min, int64_t max, int64_t& out) {
  std::string v = text(name);
  if (v.empty()) return "";
  errno = 0;
  char* end = nullptr;
  long long parsed = std::strtoll(v.c_str(), &end, 10);
  if (errno != 0 || end == v.c_str() || *end != '\0' || parsed < min || parsed > max) {
    return std::string(name) + "='" + v + "' must be an integer in [" + std::to_string(min) + ", " +
           std::to_string(max) + "]";
  }
  out = parsed;
  return "";
}

// A comma-separated list of kProfileOffNames (or "all"); "" when unset or valid.
std::string offList(const char* name, uint32_t& out) {
  std::string v = text(name);
  out = 0;
  size_t at = 0;
  while (at < v.size()) {
    size_t comma = v.find(',', at);
    std::string word = v.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    at = comma == std::string::npos ? v.size() : comma + 1;
    uint32_t bit = profileOffBit(word);
    if (bit == 0) {
      std::string known = "all";
      for (const ProfileOffName& n : kProfileOffNames) known += std::string(", ") + n.name;
      return std::string(name) + "='" + v + "' names '" + word + "', not one of " + known;
    }
    out |= bit;
  }
  return "";
}

}  // namespace

int64_t launcherRank() {
  for (const char* name : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
    if (text(name).empty()) continue;
    int64_t rank = -1;
    // The first one set decides; one that is no rank (its error) is none.
    return integer(name, 0, (1 << 24) - 1, rank).empty() ? rank : -1;
  }
  return -1;
}

std::string readInjectConfig(InjectConfig& c) {
  c.socketPath = text("STREAMSCOPE_PROFILE_SOCKET");
  c.url = text("STREAMSCOPE_PROFILE_URL");
  c.token = text("STREAMSCOPE_PROFILE_TOKEN");
  c.runId = text("STREAMSCOPE_PROFILE_RUN");
  c.outPath = text("STREAMSCOPE_PROFILE_OUT");
  c.title = text("STREAMSCOPE_PROFILE_TITLE");
  for (std::string error : {flag("STREAMSCOPE_PROFILE_NVTX", c.nvtx),
                            flag("STREAMSCOPE_PROFILE_ALL_API", c.everyApiCall),
                            flag("STREAMSCOPE_PROFILE_EVENTS", c.cudaEvents),
                            flag("STREAMSCOPE_PROFILE_DRIVER_API", c.driverApi),
                            flag("STREAMSCOPE_PROFILE_SYNC_QUERIES", c.pendingQueries),
                            flag("STREAMSCOPE_PROFILE_PINNED", c.pinnedDeviceBuffers),
                            flag("STREAMSCOPE_PROFILE_INLINE", c.handOverInline),
                            flag("STREAMSCOPE_PROFILE_API_CALLBACK", c.apiCallback)}) {
    if (!error.empty()) return error;
  }
  std::string offError = offList("STREAMSCOPE_PROFILE_OFF", c.offKinds);
  if (!offError.empty()) return offError;
  if (!c.socketPath.empty() && !c.url.empty()) {
    return "STREAMSCOPE_PROFILE_SOCKET and STREAMSCOPE_PROFILE_URL are both set; name one server";
  }
  if (!c.url.empty() && c.url.rfind("http://", 0) != 0) {
    return "STREAMSCOPE_PROFILE_URL='" + c.url + "' must start with http://";
  }
  for (char ch : c.runId) {
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
    if (!ok || c.runId.size() > 64) return "STREAMSCOPE_PROFILE_RUN='" + c.runId + "' is not a run id";
  }
  int64_t flushMs = c.flushIntervalMs;
  int64_t bufferKb = static_cast<int64_t>(c.bufferBytes >> 10);
  int64_t maxRecords = static_cast<int64_t>(c.maxQueuedRecords);
  int64_t bufferMb = static_cast<int64_t>(c.maxBufferedBytes >> 20);
  int64_t cuptiMb = static_cast<int64_t>(c.cuptiInFlightBytes >> 20);
  int64_t reconnectMs = c.reconnectMs;
  int64_t originNs = c.originRealtimeNs;
  for (std::string error : {integer("STREAMSCOPE_PROFILE_FLUSH_MS", 1, 10000, flushMs),
                            integer("STREAMSCOPE_PROFILE_BUFFER_KB", 4, 16384, bufferKb),
                            integer("STREAMSCOPE_PROFILE_MAX_RECORDS", 1024, int64_t{1} << 32, maxRecords),
                            integer("STREAMSCOPE_PROFILE_MAX_BUFFER_MB", 1, 1 << 16, bufferMb),
                            integer("STREAMSCOPE_PROFILE_CUPTI_MB", 1, 1 << 16, cuptiMb),
                            integer("STREAMSCOPE_PROFILE_RECONNECT_MS", 0, 3600000, reconnectMs),
                            integer("STREAMSCOPE_PROFILE_ORIGIN_NS", 0, INT64_MAX, originNs)}) {
    if (!error.empty()) return error;
  }
  c.flushIntervalMs = static_cast<int>(flushMs);
  c.bufferBytes = static_cast<size_t>(bufferKb) << 10;
  c.maxQueuedRecords = static_cast<size_t>(maxRecords);
  c.maxBufferedBytes = static_cast<size_t>(bufferMb) << 20;
  c.cuptiInFlightBytes = static_cast<size_t>(cuptiMb) << 20;
  c.reconnectMs = static_cast<int>(reconnectMs);
  c.originRealtimeNs = originNs;
  c.rank = launcherRank();
  if (c.socketPath.empty() && c.url.empty() && c.outPath.empty()) {
    c.outPath = "streamscope-" + std::to_string(getpid()) + ".sstrace";
  }
  return "";
}

}  // namespace streamscope
