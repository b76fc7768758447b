// One clock for host and GPU times. With CUPTI active, host times come from cuptiGetTimestamp so
// they share CUPTI's domain (GPU timestamps are converted into it); without CUPTI, from
// CLOCK_REALTIME, which is the domain CUPTI uses by default on Linux.
#pragma once

#include <cstdint>

namespace streamscope {

/** Absolute ns in the run's clock domain. Safe on any thread. */
int64_t hostNowNs();
/** Switches host times to CUPTI's clock (true) or CLOCK_REALTIME (false). */
void useCuptiClock(bool on);

}  // namespace streamscope
