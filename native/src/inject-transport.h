// Where a profiled process's record batches go: a server's live channel (Unix socket or TCP,
// with a run id and sequence numbers, resumed after a dropped connection) or a .sstrace file.
// Memory is bounded: a transport that holds maxBufferedBytes refuses more, the collector then
// leaves records in the sink, and the sink drops (and counts) past its own cap.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "codec-writer.h"
#include "inject-config.h"
#include "inject-ws.h"

namespace streamscope {

/** The hello's facts about this process. */
struct ProcessHello {
  uint32_t pid = 0;
  uint32_t ppid = 0;
  std::string processName;
  std::string title;
  std::string instance;  // random per collector: tells a restarted pid from a reconnecting one
  int64_t originNs = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  /** Whether another batch fits in the bounded buffer. */
  virtual bool canAccept() = 0;
  virtual void push(std::vector<uint8_t> batches) = 0;
  /**
   * The last batches, the end batch and the closing report (a JSON object's fields); waits up
   * to waitMs for delivery. Returns "" or one line saying what did not arrive.
   */
  virtual std::string finish(std::vector<uint8_t> lastBatches, const CodecEndCounts& end,
                             const std::string& reportFields, int waitMs) = 0;
  /**
   * Whether the trace is a file this process writes alone: what was lost then goes into the
   * file's metadata and the "wrote" line, as a server's run puts it in its warnings.
   */
  virtual bool writesFile() const { return false; }
  /** What was lost at the collector's bounds, in words ("" for nothing), for the closing line. */
  virtual void noteLosses(const std::string& text) { (void)text; }
  /** Set once the transport gave up for good (the server is gone); the collector then stops. */
  virtual std::string failure() = 0;
  /** In a forked child: forget the parent's connection and threads without touching them. */
  virtual void abandon() = 0;
};

/** Opens the transport the config names; nullptr and `error` when it cannot. */
std::unique_ptr<Transport> openTransport(const InjectConfig& config, const ProcessHello& hello, std::string& error);

}  // namespace streamscope
