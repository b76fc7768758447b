// The bound of every container on the collection path (record sink, wait linker, the injection
// collector's recorder and track registry), in entries and in bytes, so that memory stays bounded
// however long a program runs and whatever it does. Past a bound a container drops, and what it
// drops is counted (SinkCounts, RecorderCounts) and reported: the run's warnings, the CLI's
// stderr line, the trace's metadata. The byte figures are upper estimates per entry: the value,
// a hash node (next pointer, key, value) and its bucket slot, and BoundedMap's order slot.
//
// Not listed because bounded elsewhere: queued ops and ranges (STREAMSCOPE_PROFILE_MAX_RECORDS,
// InjectConfig::maxQueuedRecords), CUPTI's buffers (STREAMSCOPE_PROFILE_CUPTI_MB), frames held
// for a server that is away (STREAMSCOPE_PROFILE_MAX_BUFFER_MB), the API-call rings
// (kApiRingEntries x kApiRingThreads, inject-api-calls.h), driver calls waiting for their runtime
// call (kMaxPendingDriver, inject-recorder.cc), and the executor's per-plan tables (events,
// graphs, streams: the workload's validated limits).
#pragma once

#include <cstddef>
#include <cstdint>

namespace streamscope {

/** Bytes one entry of a BoundedMap<V> or unordered_map<uint64_t, V> costs at most. */
template <typename V>
constexpr size_t mapEntryBytes() {
  // node: next pointer + key + value + generation; bucket pointer; order slot (key, generation)
  return sizeof(void*) + 8 + sizeof(V) + 8 + sizeof(void*) + 16;
}

// --- RecordSink (record-sink.h) ---

/**
 * Flows (arrows) queued between two drains, or the sink's record cap when lower: each flow names
 * an op queued or sent, and one op may take up to kMaxLinksPerKey flows at once. Past it new
 * flows are dropped (flowsDropped).
 */
constexpr size_t kMaxQueuedFlows = 1u << 20;
constexpr size_t kQueuedFlowsBytes = kMaxQueuedFlows * 12;  // CodecFlow: 2 x uint32 + kind, padded
/**
 * Issued ops (executor: correlation id -> what its GPU record becomes) not yet matched. A record
 * arrives within a few drains of its call; an entry forgotten here makes its record `unmatched`.
 */
constexpr size_t kMaxIssuedOps = 1u << 18;
constexpr size_t kIssuedOpBytesEach = 48;  // IssuedOp (32) + records seen (4), padded
constexpr size_t kIssuedOpsBytes = kMaxIssuedOps * (kIssuedOpBytesEach + 40);
/** Distinct interned names, and their bytes; past either, a name becomes kNamePastCap. */
constexpr size_t kMaxStrings = 1u << 17;
constexpr size_t kMaxStringBytes = 16u << 20;
/** The interned table's cost: the names' bytes plus a node (string header, id, hash) each. */
constexpr size_t kStringsBytes = kMaxStringBytes + kMaxStrings * 64;
constexpr const char* kNamePastCap = "(name past the collector's bound)";

// --- WaitLinker (wait-linker.h) ---

/**
 * Stream waits held for their GPU times; past it the oldest is given up (unresolvedWaits). Waits
 * held behind one late record pile up for as long as it is late: per_call's event case holds
 * 150k of them on one stream beside 150k ready ones within one drain (stream-wait-ops.test.ts).
 */
constexpr size_t kMaxPendingWaits = 1u << 19;
// Pending: WaitIssue (40) + 2 x Known (24), and a watched_ entry for at most one of its two
constexpr size_t kPendingWaitsBytes = kMaxPendingWaits * 96;

// --- ProfileRecorder (inject-recorder.h) ---

/** API ops by correlation id, for GPU records still to come (evicting it loses nothing drawn). */
constexpr size_t kMaxApiByCorrelation = 1u << 17;
/** Correlation ids whose GPU ops wait for their API call; each holds at most kMaxLinksPerKey. */
constexpr size_t kMaxGpuByCorrelation = 1u << 16;
/** Event records by sync id, and sync ops waiting for the record of their sync id. */
constexpr size_t kMaxRecordsBySyncId = 1u << 14;
constexpr size_t kMaxWaitsBySyncId = 1u << 14;
/** Ops waiting on one key (a graph launch's nodes, the waits of one event record). */
constexpr size_t kMaxLinksPerKey = 64;
constexpr size_t kLinkListBytes = 24 + kMaxLinksPerKey * 4;  // vector header + op indices
constexpr size_t kLinksBytes =
    kMaxApiByCorrelation * 48 + (kMaxGpuByCorrelation + kMaxWaitsBySyncId) * (48 + kLinkListBytes) +
    kMaxRecordsBySyncId * 48;
/** NVTX start/end ranges open at once; past it the oldest is forgotten (its range dropped). */
constexpr size_t kMaxOpenRanges = 1u << 14;
constexpr size_t kOpenRangesBytes = kMaxOpenRanges * 80;
/** Host threads whose API nesting and range depth are kept; past it the oldest thread's go. */
constexpr size_t kMaxThreadsKept = 1u << 10;
constexpr size_t kRuntimeSpansKept = 512;  // per thread: recent runtime calls (start, end)
constexpr size_t kThreadsBytes = kMaxThreadsKept * (80 + kRuntimeSpansKept * 16);
/** Kernel launch configurations; past it a kernel keeps no launch configuration. */
constexpr size_t kMaxLaunchConfigs = 1u << 16;
constexpr size_t kLaunchConfigsBytes = kMaxLaunchConfigs * (64 + 32 + 32);  // node, key, CodecLaunch

// --- TrackRegistry (inject-tracks.h) ---

/** Lanes of one process (host threads and streams); ops on a lane past it are dropped. */
constexpr size_t kMaxTracks = 1u << 14;
/** Streams and contexts described by CUPTI (created, maybe never used); past it: not described. */
constexpr size_t kMaxStreamsDescribed = 1u << 15;
constexpr size_t kMaxContexts = 1u << 10;
constexpr size_t kMaxDevices = 1u << 8;
constexpr size_t kTracksBytes =
    kMaxTracks * 96 + kMaxStreamsDescribed * 64 + kMaxContexts * 96 + kMaxDevices * 512;

/** Everything above: the collection path's own tables never hold more than this. */
constexpr size_t kBoundedTablesBytes = kQueuedFlowsBytes + kIssuedOpsBytes + kStringsBytes +
                                       kPendingWaitsBytes + kLinksBytes + kOpenRangesBytes +
                                       kThreadsBytes + kLaunchConfigsBytes + kTracksBytes;
static_assert(kBoundedTablesBytes < (160u << 20), "the collection path's tables must stay under 160 MiB");

}  // namespace streamscope
