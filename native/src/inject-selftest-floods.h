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
 * link kMaxLinksPerKey GPU records at once, with no drain). Returns "" or what is wrong.
 */
std::string flood(const std::string& what, uint64_t n);

/** Prints `footprint rssKb=K`, then `  NAME HELD BOUND` for each bounded table. */
void printFootprint();

}  // namespace streamscope
