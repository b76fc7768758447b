#include "inject-tracks.h"

#include <fstream>

#include "inject-json.h"

namespace streamscope {

namespace {

// The thread's name as the kernel keeps it (`pt_autograd_0`, `python3`), or "" when unreadable.
std::string threadName(uint32_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

std::string placeholderDevice(uint32_t deviceId) {
  return "{\"deviceId\":" + std::to_string(deviceId) + ",\"name\":\"GPU " + std::to_string(deviceId) + "\"}";
}

}  // namespace

TrackRegistry::TrackRegistry(RecordSink& sink, uint32_t pid, std::string processName, int64_t rank)
    : sink_(sink),
      pid_(pid),
      processName_(std::move(processName)),
      rankField_(rank >= 0 ? ",\"rank\":" + std::to_string(rank) : "") {}

void TrackRegistry::device(const CUpti_ActivityDevice5& d) {
  std::string json = "{\"deviceId\":" + std::to_string(d.id) +
                     ",\"name\":" + jsonQuote(d.name != nullptr ? d.name : "GPU " + std::to_string(d.id)) +
                     ",\"smCount\":" + std::to_string(d.numMultiprocessors) +
                     ",\"copyEngineCount\":" + std::to_string(d.numMemcpyEngines) +
                     ",\"memoryBytes\":" + std::to_string(d.globalMemorySize) + ",\"computeCapability\":\"" +
                     std::to_string(d.computeCapabilityMajor) + "." + std::to_string(d.computeCapabilityMinor) +
                     "\",\"clockRateKHz\":" + std::to_string(d.coreClockRate) + "}";
  if (deviceJson_.size() >= kMaxDevices && deviceJson_.count(d.id) == 0) {
    undescribed_++;
    return;
  }
  deviceJson_[d.id] = json;
}

void TrackRegistry::context(uint32_t contextId, uint32_t deviceId, uint32_t nullStreamId) {
  if (contextDevice_.size() >= kMaxContexts && contextDevice_.count(contextId) == 0) {
    undescribed_++;
    return;
  }
  contextDevice_[contextId] = deviceId;
  contextNullStream_[contextId] = nullStreamId;
}

void TrackRegistry::stream(uint32_t contextId, uint32_t streamId, uint32_t priority, uint32_t flag) {
  StreamInfo info;
  info.priority = static_cast<int32_t>(priority);
  switch (flag & CUPTI_ACTIVITY_STREAM_CREATE_MASK) {
    case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT: info.type = "blocking"; break;
    case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING: info.type = "non-blocking"; break;
    case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL: info.type = "legacy-default"; break;
    default: break;
  }
  // A program that creates and destroys streams in a loop describes each new one.
  if (streamInfo_.size() >= kMaxStreamsDescribed && streamInfo_.count({contextId, streamId}) == 0) {
    undescribed_++;
    return;
  }
  streamInfo_[{contextId, streamId}] = info;
}

uint32_t TrackRegistry::deviceOf(uint32_t contextId) const {
  auto found = contextDevice_.find(contextId);
  return found == contextDevice_.end() ? 0 : found->second;
}

uint32_t TrackRegistry::addTrack(const std::string& trackJson, const std::string& deviceJson) {
  std::string json = "{\"firstDevice\":" + std::to_string(devices_) + ",\"devices\":[" + deviceJson +
                     "],\"firstProcess\":" + std::to_string(processSent_ ? 1 : 0) + ",\"processes\":[";
  if (!processSent_) {
    json += "{\"pid\":" + std::to_string(pid_) + ",\"name\":" + jsonQuote(processName_) + rankField_ + "}";
    processSent_ = true;
  }
  json += "],\"firstTrack\":" + std::to_string(tracks_) + ",\"tracks\":[" + trackJson + "]}";
  if (!deviceJson.empty()) devices_++;
  sink_.addStructure(std::move(json));
  return tracks_++;
}

uint32_t TrackRegistry::thread(uint32_t tid) {
  auto found = threadTracks_.find(tid);
  if (found != threadTracks_.end()) return found->second;
  if (tracks_ >= kMaxTracks) return kNoTrack;
  std::string json = "{\"kind\":\"host-thread\",\"name\":" + jsonQuote(threadName(tid)) +
                     ",\"pid\":" + std::to_string(pid_) + ",\"tid\":" + std::to_string(tid) + rankField_ + "}";
  uint32_t track = addTrack(json, "");
  threadTracks_[tid] = track;
  return track;
}

uint32_t TrackRegistry::stream(uint32_t deviceId, uint32_t contextId, uint32_t streamId) {
  auto key = std::make_tuple(deviceId, contextId, streamId);
  auto found = streamTracks_.find(key);
  if (found != streamTracks_.end()) return found->second;
  if (tracks_ >= kMaxTracks) return kNoTrack;
  if (contextDevice_.size() < kMaxContexts && contextDevice_.find(contextId) == contextDevice_.end()) {
    contextDevice_[contextId] = deviceId;
  }
  StreamInfo info;
  auto known = streamInfo_.find({contextId, streamId});
  if (known != streamInfo_.end()) {
    info = known->second;
  } else {
    auto nullStream = contextNullStream_.find(contextId);
    if (nullStream != contextNullStream_.end() && nullStream->second == streamId) info.type = "legacy-default";
  }
  std::string deviceJson;
  if (!deviceSent_[deviceId]) {
    auto described = deviceJson_.find(deviceId);
    deviceJson = described != deviceJson_.end() ? described->second : placeholderDevice(deviceId);
    deviceSent_[deviceId] = true;
  }
  std::string json = "{\"kind\":\"gpu-stream\",\"name\":\"\",\"pid\":" + std::to_string(pid_) +
                     ",\"deviceId\":" + std::to_string(deviceId) + ",\"contextId\":" + std::to_string(contextId) +
                     ",\"streamId\":" + std::to_string(streamId) + ",\"streamType\":\"" + info.type +
                     "\",\"priority\":" + std::to_string(info.priority) + rankField_ + "}";
  uint32_t track = addTrack(json, deviceJson);
  streamTracks_[key] = track;
  return track;
}

uint32_t TrackRegistry::contextSync(uint32_t contextId) {
  auto found = contextSyncTracks_.find(contextId);
  if (found != contextSyncTracks_.end()) return found->second;
  if (tracks_ >= kMaxTracks) return kNoTrack;
  uint32_t deviceId = deviceOf(contextId);
  std::string deviceJson;
  if (!deviceSent_[deviceId]) {
    auto described = deviceJson_.find(deviceId);
    deviceJson = described != deviceJson_.end() ? described->second : placeholderDevice(deviceId);
    deviceSent_[deviceId] = true;
  }
  // As the nsys importer names it; stream id -1: no stream of its own.
  std::string json = "{\"kind\":\"gpu-stream\",\"name\":\"Context " + std::to_string(contextId) +
                     " sync\",\"pid\":" + std::to_string(pid_) + ",\"deviceId\":" + std::to_string(deviceId) +
                     ",\"contextId\":" + std::to_string(contextId) +
                     ",\"streamId\":-1,\"streamType\":\"unknown\",\"priority\":0" + rankField_ + "}";
  uint32_t track = addTrack(json, deviceJson);
  contextSyncTracks_[contextId] = track;
  return track;
}

}  // namespace streamscope
