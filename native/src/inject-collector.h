// The injection collector's life in one process: started by InitializeInjection (or the
// self-test), fed by CUPTI's buffers, drained by its own flush thread, finished at exit. Any
// failure prints one line to stderr and turns collection off; the program's results and exit
// status never depend on it.
#pragma once

#include <cstdint>

#include "cupti-session.h"
#include "inject-config.h"
#include "inject-recorder.h"

namespace streamscope {

/** Starts collecting (withCupti false: the self-test feeds records itself). Returns whether it runs. */
bool collectorStart(bool withCupti);
/** One flush cycle's work after CUPTI flushed: tick, drain, hand to the transport. */
void collectorAfterFlush();
/** At exit: the last records, the end batch and the report; one line only if something was lost. */
void collectorExit();
/** What CUPTI is asked to collect under `config` (the self-test's `activities` step prints it). */
ProfileActivities profileActivitiesOf(const InjectConfig& config);
/** The running collector's settings, or nullptr before it started. */
const InjectConfig* collectorConfig();
/** The running collector's recorder (the self-test feeds it), or nullptr. */
ProfileRecorder* collectorRecorder();
/** The running collector's sink (the self-test reads its footprint), or nullptr. */
RecordSink* collectorSink();
/** Absolute ns of this process's trace time 0, in CUPTI's clock (the records' clock). */
int64_t collectorOriginNs();

}  // namespace streamscope
