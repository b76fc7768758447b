#include "wait-linker.h"

#include <algorithm>
#include <unordered_set>

#include "collector-bounds.h"
#include "record-sink.h"

namespace streamscope {

void WaitLinker::issued(uint32_t track, int32_t event, uint32_t correlation) {
  if (correlation == 0) return;
  lastIssuedOnTrack_[track] = correlation;
  if (event >= 0) lastRecordOfEvent_[event] = correlation;
}

WaitLinker::Known WaitLinker::lookup(uint32_t correlation, const Known* latest) {
  Known k;
  k.correlation = correlation;
  if (correlation == 0) return k;
  // Already joined: nothing issued on that stream (or recorded on that event) since, so the
  // latest match is the one. Otherwise it is still on the GPU or in CUPTI's buffers: watch it.
  if (latest != nullptr && latest->correlation == correlation && latest->matched) return *latest;
  Watch& w = watched_[correlation];
  w.refs++;
  w.known.correlation = correlation;
  k.watched = true;
  return k;
}

void WaitLinker::wait(const WaitIssue& issue) {
  if (pending_.size() >= kMaxPendingWaits) {
    // A record that never arrives holds every later wait of its stream: give up the oldest.
    const Pending& oldest = pending_.front();
    unresolved_++;
    release(oldest.before);
    release(oldest.record);
    pending_.pop_front();
  }
  Pending p;
  p.issue = issue;
  if (!issue.onHost) {
    auto before = lastIssuedOnTrack_.find(issue.track);
    auto latest = lastMatchedOnTrack_.find(issue.track);
    p.before = lookup(before == lastIssuedOnTrack_.end() ? 0 : before->second,
                      latest == lastMatchedOnTrack_.end() ? nullptr : &latest->second);
  }
  auto record = lastRecordOfEvent_.find(issue.event);
  auto latest = lastMatchedOfEvent_.find(issue.event);
  p.record = lookup(record == lastRecordOfEvent_.end() ? 0 : record->second,
                    latest == lastMatchedOfEvent_.end() ? nullptr : &latest->second);
  pending_.push_back(p);
}

void WaitLinker::matched(uint32_t correlation, uint32_t track, int32_t event, uint32_t opIndex,
                         int64_t endNs) {
  Known k;
  k.correlation = correlation;
  k.op = opIndex;
  k.endNs = endNs;
  k.matched = true;
  // A graph launch's nodes share one correlation: the stream is free after the last of them.
  auto extend = [&k](Known& into) {
    if (into.matched && into.correlation == k.correlation) {
      into.endNs = std::max(into.endNs, k.endNs);
    } else {
      bool watched = into.watched;
      into = k;
      into.watched = watched;
    }
  };
  extend(lastMatchedOnTrack_[track]);
  if (event >= 0) lastMatchedOfEvent_[event] = k;
  auto w = watched_.find(correlation);
  if (w != watched_.end()) extend(w->second.known);
}

void WaitLinker::resolve(Known& k) {
  if (k.correlation == 0 || k.matched) return;
  auto w = watched_.find(k.correlation);
  if (w != watched_.end() && w->second.known.matched) {
    k = w->second.known;
    k.watched = true;
  }
}

void WaitLinker::release(const Known& k) {
  if (!k.watched) return;
  auto w = watched_.find(k.correlation);
  if (w != watched_.end() && --w->second.refs == 0) watched_.erase(w);
}

void WaitLinker::emit(uint32_t firstIndex, int64_t originNs, bool final, std::vector<CodecOp>& ops,
                      std::vector<CodecFlow>& flows) {
  auto rel = [originNs](int64_t absNs) { return absNs > originNs ? absNs - originNs : 0; };
  size_t kept = 0;
  // A stream passes its waits in order: one behind an unplaced wait on its stream waits too.
  // A set, each track once: thousands of waits held behind one record stay O(1) each (a list
  // with a track per held wait made a drain quadratic in the waits pending).
  std::unordered_set<uint32_t> heldTracks;
  auto held = [&heldTracks](uint32_t track) { return heldTracks.count(track) != 0; };
  for (Pending& p : pending_) {
    resolve(p.before);
    resolve(p.record);
    bool ready = (p.before.correlation == 0 || p.before.matched) && (p.record.correlation == 0 || p.record.matched);
    if (!p.issue.onHost && held(p.issue.track)) ready = ready && final;
    if (!ready) {
      if (!p.issue.onHost) heldTracks.insert(p.issue.track);
      if (final) {
        unresolved_++;
        release(p.before);
        release(p.record);
      } else {
        pending_[kept++] = p;
      }
      continue;
    }
    const WaitIssue& w = p.issue;
    if (w.onHost) {
      if (p.record.matched && w.apiOp != kNone) flows.push_back(CodecFlow{p.record.op, w.apiOp, kFlowRecordToWait});
    } else {
      int64_t startNs = p.before.matched ? std::max(w.apiStartNs, p.before.endNs) : w.apiStartNs;
      // Right behind another wait (no GPU work between them): it starts when that one ends.
      auto last = lastWaitOnTrack_.find(w.track);
      if (last != lastWaitOnTrack_.end() && last->second.correlation == p.before.correlation) {
        startNs = std::max(startNs, last->second.endNs);
      }
      int64_t endNs = p.record.matched ? std::max(startNs, p.record.endNs) : startNs;
      CodecOp op;
      op.startNs = rel(startNs);
      op.endNs = rel(endNs);
      op.track = w.track;
      op.kind = kStreamWait;
      op.nameId = w.nameId;
      op.refId = static_cast<uint32_t>(w.event);
      Known placed;
      placed.correlation = p.before.correlation;
      placed.endNs = endNs;
      lastWaitOnTrack_[w.track] = placed;
      uint32_t index = firstIndex + static_cast<uint32_t>(ops.size());
      ops.push_back(op);
      if (w.apiOp != kNone) flows.push_back(CodecFlow{w.apiOp, index, kFlowApiToGpu});
      if (p.record.matched) flows.push_back(CodecFlow{p.record.op, index, kFlowRecordToWait});
    }
    release(p.before);
    release(p.record);
  }
  pending_.resize(kept);
}

}  // namespace streamscope
