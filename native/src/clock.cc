#include "clock.h"

#include <atomic>
#include <ctime>

#include "cupti-api.h"

namespace streamscope {

namespace {
std::atomic<bool> cuptiClock{false};
}

void useCuptiClock(bool on) { cuptiClock.store(on); }

int64_t hostNowNs() {
  if (cuptiClock.load(std::memory_order_relaxed)) {
    uint64_t t = 0;
    if (cuptiApi().getTimestamp(&t) == CUPTI_SUCCESS) {
      return static_cast<int64_t>(t);
    }
  }
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

}  // namespace streamscope
