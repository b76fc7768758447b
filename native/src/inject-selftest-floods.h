// The self-test's floods (inject-selftest-floods.cc): each pushes one of the collector's bounded
// tables (collector-bounds.h) past its bound through the real recorder, sink and transport.
#pragma once

#include <cstdint>
#include <string>

namespace streamscope {

/**
 * N records of one kind: unlinked (GPU records whose call never comes), waits-one-event and
 * waits (stream waits whose event record never comes), ranges (never ended), names (a new one
 * each), threads, streams, launches (a new launch configuration each), flows (N calls that each
 * link kMaxLinksPerKey GPU records at once, with no drain); and the executor's side of the sink,
 * driven directly: issued (N issued ops, GPU records only for the first and last 1000; it
 * must come first in a script) and pending-waits (N waits whose event record never completes).
 * Returns "" or what is wrong.
 */
std::string flood(const std::string& what, uint64_t n);

/**
 * Prints `footprint rssKb=K`, then `  NAME HELD BOUND` for each bounded table, then
 * `counts unmatched=U unresolvedWaits=W opsOut=N` (the sink's executor-side counts, drained).
 */
void printFootprint();

}  // namespace streamscope
