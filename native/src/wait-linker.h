// The GPU side of cudaStreamWaitEvent, which CUPTI does not report as an activity: the waiting
// stream is held from the moment it reaches the wait (its previous op ends, or the call is made
// if that is later) until the event's record completes on the recording stream. The linker also
// ties each record to what waited on it (a stream wait, or cudaEventSynchronize on the host) as
// flows, as the simulator does. It lives inside RecordSink and runs under the sink's lock.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "codec-writer.h"

namespace streamscope {

/** A wait as its issuing thread saw it. */
struct WaitIssue {
  uint32_t track = 0;       // the waiting stream's track (unused for a host wait)
  uint32_t nameId = 0;      // the wait op's name
  int32_t event = -1;       // the plan's event index
  int64_t apiStartNs = 0;   // absolute: when the call began
  uint32_t apiOp = 0xffffffffu;  // op index of the API call, or none
  bool onHost = false;      // cudaEventSynchronize: only a flow, no GPU op
};

class WaitLinker {
 public:
  static constexpr uint32_t kNone = 0xffffffffu;

  /** GPU work with this correlation was issued on `track`; `event` >= 0 for an event record. */
  void issued(uint32_t track, int32_t event, uint32_t correlation);
  /**
   * A wait was issued (after the work before it on its stream, and after the record it names).
   * Past kMaxPendingWaits held waits, the oldest is given up and counted as unresolved.
   */
  void wait(const WaitIssue& issue);
  /** A GPU record was joined to op `opIndex`, ending at `endNs` (absolute). */
  void matched(uint32_t correlation, uint32_t track, int32_t event, uint32_t opIndex, int64_t endNs);
  /**
   * Appends the wait ops that can now be placed (indices from `firstIndex + ops.size()`, times
   * relative to `originNs`) and their flows. With `final`, waits still missing a GPU time are
   * given up and counted.
   */
  void emit(uint32_t firstIndex, int64_t originNs, bool final, std::vector<CodecOp>& ops,
            std::vector<CodecFlow>& flows);
  uint64_t unresolved() const { return unresolved_; }
  /** Waits held for their GPU times now (at most kMaxPendingWaits). */
  size_t pending() const { return pending_.size(); }

 private:
  struct Known {
    uint32_t correlation = 0;
    uint32_t op = kNone;
    int64_t endNs = 0;
    bool matched = false;
    bool watched = false;  // holds a reference in watched_
  };
  struct Watch {
    Known known;
    uint32_t refs = 0;
  };
  struct Pending {
    WaitIssue issue;
    Known before;  // the last GPU work issued on the waiting stream before the wait
    Known record;  // the event's latest record when the wait was issued
  };

  Known lookup(uint32_t correlation, const Known* latest);
  void resolve(Known& k);
  void release(const Known& k);

  std::unordered_map<uint32_t, uint32_t> lastIssuedOnTrack_;  // track -> correlation
  std::unordered_map<int32_t, uint32_t> lastRecordOfEvent_;   // event -> correlation
  std::unordered_map<uint32_t, Known> lastMatchedOnTrack_;
  std::unordered_map<int32_t, Known> lastMatchedOfEvent_;
  std::unordered_map<uint32_t, Known> lastWaitOnTrack_;  // correlation: the GPU work before it
  std::unordered_map<uint32_t, Watch> watched_;  // correlation -> what is known of it
  std::deque<Pending> pending_;
  uint64_t unresolved_ = 0;
};

}  // namespace streamscope
