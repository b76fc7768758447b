// The lanes of one profiled process as CUPTI reveals them: its host threads (API calls, NVTX)
// and every stream of every context it uses. Each new one is announced to the sink as a
// structure batch before the first op on it, so the receiver always knows an op's track.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "collector-bounds.h"
#include "record-sink.h"

namespace streamscope {

/** What thread(), stream() and contextSync() return past kMaxTracks: the op is to be dropped. */
constexpr uint32_t kNoTrack = 0xffffffffu;

class TrackRegistry {
 public:
  /** `rank`: the process's rank in a distributed job (launcherRank), or -1. */
  TrackRegistry(RecordSink& sink, uint32_t pid, std::string processName, int64_t rank = -1);

  /** Learned from DEVICE, CONTEXT and STREAM records (before the ops of the same buffer). */
  void device(const CUpti_ActivityDevice5& d);
  void context(uint32_t contextId, uint32_t deviceId, uint32_t nullStreamId);
  void stream(uint32_t contextId, uint32_t streamId, uint32_t priority, uint32_t flag);

  /** The track of a host thread (kernel tid), created on first use. */
  uint32_t thread(uint32_t tid);
  /** The track of a stream, created on first use (and its device, if still unknown). */
  uint32_t stream(uint32_t deviceId, uint32_t contextId, uint32_t streamId);
  /** The lane of syncs that name no stream (context synchronize). */
  uint32_t contextSync(uint32_t contextId);
  /** The device of a context, when any record has told it; else 0. */
  uint32_t deviceOf(uint32_t contextId) const;

  uint32_t devices() const { return devices_; }
  uint32_t processes() const { return processSent_ ? 1 : 0; }
  uint32_t tracks() const { return tracks_; }
  size_t streamsDescribed() const { return streamInfo_.size(); }
  size_t contexts() const { return contextDevice_.size(); }
  /** Devices, contexts and streams CUPTI described past their bounds (left undescribed). */
  uint64_t undescribed() const { return undescribed_; }

 private:
  struct StreamInfo {
    int32_t priority = 0;
    const char* type = "unknown";
  };
  void ensureDevice(uint32_t deviceId, const std::string& json);
  uint32_t addTrack(const std::string& trackJson, const std::string& deviceJson);

  RecordSink& sink_;
  const uint32_t pid_;
  const std::string processName_;
  /** `,"rank":N` for the process and each track of a rank; "" otherwise. */
  const std::string rankField_;
  bool processSent_ = false;
  uint32_t devices_ = 0;
  uint32_t tracks_ = 0;
  uint64_t undescribed_ = 0;
  std::unordered_map<uint32_t, std::string> deviceJson_;  // device id -> its JSON, once known
  std::unordered_map<uint32_t, bool> deviceSent_;
  std::unordered_map<uint32_t, uint32_t> contextDevice_;
  std::unordered_map<uint32_t, uint32_t> contextNullStream_;
  std::map<std::pair<uint32_t, uint32_t>, StreamInfo> streamInfo_;  // (context, stream)
  std::unordered_map<uint32_t, uint32_t> threadTracks_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> streamTracks_;
  std::unordered_map<uint32_t, uint32_t> contextSyncTracks_;
};

}  // namespace streamscope
