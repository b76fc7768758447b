// The process's one CUPTI owner: activity buffers, our own flush thread (CUPTI's periodic flush
// does not return partly filled buffers, so records would wait until the run ends), and the
// runtime-API callback that tells each issuing thread the correlation id of its last call.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "record-sink.h"

namespace streamscope {

/**
 * Starts CUPTI activity collection; returns "" on success, else why it is unavailable.
 * Idempotent; `eventRecords` also turns on CUDA event records (plans that record events).
 */
std::string cuptiStart(bool eventRecords);
/** Routes activity records to `sink` (nullptr: records are discarded) and flushes every flushMs. */
void cuptiAttach(RecordSink* sink, int flushIntervalMs);
/** Forced flush (after the GPU is idle), then stops the flush thread and detaches the sink. */
void cuptiFinish();
/** What optional CUPTI features did at start (for status and diagnosis). */
std::string cuptiNotes();
/** CUPTI's version number, or 0 when not loaded. */
uint32_t cuptiVersion();

/** Receives every activity record of a profiled process (the injection collector). */
class ActivityHandler {
 public:
  virtual ~ActivityHandler() = default;
  /** One completed buffer's records, in buffer order, on whatever thread CUPTI returns it. */
  virtual void onRecords(const std::vector<const CUpti_Activity*>& records) = 0;
  /** Records CUPTI dropped: no buffer was free, or its own count. */
  virtual void onCuptiDropped(uint64_t n) = 0;
};

/** Record kinds a profile can leave off (STREAMSCOPE_PROFILE_OFF), to measure what each costs. */
enum ProfileOff : uint32_t {
  kOffRuntime = 1u << 0,
  kOffDriver = 1u << 1,
  kOffKernel = 1u << 2,
  kOffCopy = 1u << 3,
  kOffMemset = 1u << 4,
  kOffSync = 1u << 5,
  kOffEvent = 1u << 6,
  kOffNvtx = 1u << 7,
  kOffInfo = 1u << 8,  // device, context and stream descriptions
};
struct ProfileOffName {
  const char* name;
  uint32_t bit;
};
inline constexpr ProfileOffName kProfileOffNames[] = {
    {"runtime", kOffRuntime}, {"driver", kOffDriver}, {"kernel", kOffKernel},
    {"copy", kOffCopy},       {"memset", kOffMemset}, {"sync", kOffSync},
    {"event", kOffEvent},     {"nvtx", kOffNvtx},     {"info", kOffInfo},
};
/** The bit of one name of kProfileOffNames, every bit for "all", 0 for anything else. */
uint32_t profileOffBit(const std::string& word);

/** What a profiled process collects beyond kernels, copies, memsets, events and syncs. */
struct ProfileActivities {
  bool nvtx = true;
  bool driverApi = true;
  /** Every API call, queries too (cudaGetDevice...); off: only calls that do or wait for work. */
  bool everyApiCall = false;
  /** In-flight activity buffers past this many bytes are refused (CUPTI drops and counts). */
  size_t maxBufferBytes = 64u << 20;
  size_t bufferBytes = 32u << 10;
  /** CUDA event records (device timestamps): what record→wait flows are drawn from (opt-in: inject-config.h). */
  bool cudaEvents = false;
  /** Event and stream queries that found work pending (polling loops make many). */
  bool pendingQueries = true;
  /** CUPTI's device-side timestamp buffers in pinned host memory instead of device memory. */
  bool pinnedDeviceBuffers = false;
  /**
   * Records runtime and driver calls from this CUPTI callback (the collector's, which skips the
   * driver calls a runtime call makes) instead of CUPTI's API activity records; nullptr (the
   * default): those.
   */
  CUpti_CallbackFunc apiCallback = nullptr;
  /** ProfileOff bits: kinds left off (measurement only; 0 in normal runs). */
  uint32_t offKinds = 0;
};

/**
 * Starts CUPTI for a whole process (the injection collector); returns "" or why not. It
 * subscribes first: with another profiler attached (nsys, torch.profiler) that fails with
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED and nothing is enabled.
 */
std::string cuptiStartProfile(const ProfileActivities& what);
/**
 * Routes every record to `handler`; every flushIntervalMs our own thread flushes CUPTI, then
 * calls `afterFlush` (drain and send) on that same thread.
 */
void cuptiAttachHandler(ActivityHandler* handler, int flushIntervalMs, std::function<void()> afterFlush);
/** Stops the flush thread, then a forced flush delivers what CUPTI holds to the handler. */
void cuptiFinishProfile();
/**
 * true (default): completed buffers are queued and handed to the handler on our flush thread;
 * false: on whatever thread CUPTI completes them (the overhead comparison's other arm).
 */
void cuptiDeferHandOver(bool defer);
/** Disables every kind and unsubscribes: a disabled collector costs the program nothing more. */
void cuptiStopProfile();

/** Buffer size and the cap on bytes CUPTI may hold at once (0: none). */
void cuptiSetBuffers(size_t bytesPerBuffer, size_t maxBytesInFlight);
/** Buffers refused at the cap so far (each made CUPTI drop records). */
uint64_t cuptiRefusedBuffers();
/** Registers our buffer callbacks with CUPTI (cupti-profile.cc); "" or why not. */
std::string cuptiRegisterBuffers();

/** OpKindCode of a CUPTI memcpy kind. */
uint8_t copyKindOf(uint8_t cuptiCopyKind);
/** Source and destination memory kinds as the codec packs them (low nibble source). */
uint8_t packKinds(unsigned src, unsigned dst);

/** Per issuing thread: forget the last correlation id, then read the id of the next CUDA call. */
void resetCorrelation();
uint32_t lastCorrelation();
/**
 * Per issuing thread: from now on, remember the correlation id of every kernel launch, runtime
 * or driver API (a library such as NCCL launches through the driver, several kernels per call).
 */
void beginCorrelationCapture();
std::vector<uint32_t> endCorrelationCapture();

}  // namespace streamscope
