// The process's one CUPTI owner: activity buffers, our own flush thread (CUPTI's periodic flush
// does not return partly filled buffers, so records would wait until the run ends), and the
// runtime-API callback that tells each issuing thread the correlation id of its last call.
#pragma once

#include <cstdint>
#include <string>

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

/** Per issuing thread: forget the last correlation id, then read the id of the next CUDA call. */
void resetCorrelation();
uint32_t lastCorrelation();

}  // namespace streamscope
