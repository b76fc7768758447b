#include "inject-api-calls.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "clock.h"

namespace streamscope {

namespace {

static_assert((kApiRingEntries & (kApiRingEntries - 1)) == 0, "ring size must be a power of 2");

// One thread's calls: written only by its thread (head), read only by the flush thread (tail).
struct ThreadRing {
  std::atomic<uint64_t> head{0};
  std::atomic<uint64_t> tail{0};
  std::atomic<uint32_t> state{0};  // kFree, kOwned, kRetired
  std::atomic<uint64_t> dropped{0};
  ApiCallRecord* entries = nullptr;  // kApiRingEntries; allocated at the slot's first claim, kept
};

constexpr uint32_t kFree = 0;
constexpr uint32_t kOwned = 1;
constexpr uint32_t kRetired = 2;  // its thread exited: drained once more, then free

// Static storage: never destroyed, so a thread still in a CUDA call during exit finds it intact.
ThreadRing rings[kApiRingThreads];
std::atomic<uint64_t> unringed{0};  // calls of threads that found no free slot

// The thread's slot; handed back (retired) when the thread exits.
struct RingOwner {
  ThreadRing* ring = nullptr;
  bool tried = false;
  bool gone = false;  // destroyed: the thread is exiting (the main thread: exit() has begun)
  ~RingOwner() {
    if (ring != nullptr) ring->state.store(kRetired, std::memory_order_release);
    ring = nullptr;
    gone = true;
  }
};

thread_local RingOwner tlsOwner;
thread_local uint32_t tlsRuntimeDepth = 0;  // runtime calls open on this thread
thread_local uint32_t tlsThreadId = 0;

ThreadRing* claim() {
  for (ThreadRing& r : rings) {
    uint32_t expected = kFree;
    if (r.state.load(std::memory_order_relaxed) == kFree &&
        r.state.compare_exchange_strong(expected, kOwned, std::memory_order_acq_rel)) {
      // The one allocation on a program thread: a slot's first owner; later owners reuse it.
      if (r.entries == nullptr) r.entries = new (std::nothrow) ApiCallRecord[kApiRingEntries];
      if (r.entries == nullptr) {
        r.state.store(kFree, std::memory_order_release);
        return nullptr;
      }
      return &r;
    }
  }
  return nullptr;
}

void push(const ApiCallRecord& call) {
  RingOwner& owner = tlsOwner;
  // Calls a thread makes after its thread-locals are torn down come after the collector's own
  // exit handler too (glibc runs the main thread's before atexit's): not recorded, as none are
  // once collection has finished.
  if (owner.gone) return;
  if (owner.ring == nullptr) {
    if (owner.tried) {
      unringed.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    owner.tried = true;
    owner.ring = claim();
    if (owner.ring == nullptr) {
      unringed.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  ThreadRing& r = *owner.ring;
  uint64_t head = r.head.load(std::memory_order_relaxed);
  if (head - r.tail.load(std::memory_order_acquire) >= kApiRingEntries) {
    r.dropped.fetch_add(1, std::memory_order_relaxed);  // full until the next flush
    return;
  }
  r.entries[head & (kApiRingEntries - 1)] = call;
  r.head.store(head + 1, std::memory_order_release);
}

// The collector's clock: CUPTI's (that of the activity records) once CUPTI is loaded.
uint64_t nowNs() { return static_cast<uint64_t>(hostNowNs()); }

uint32_t threadId() {
  if (tlsThreadId == 0) tlsThreadId = static_cast<uint32_t>(syscall(SYS_gettid));
  return tlsThreadId;
}

}  // namespace

void CUPTIAPI apiCallCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  if (!runtime && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  if (info->callbackSite == CUPTI_API_ENTER) {
    if (runtime) {
      tlsRuntimeDepth++;
    } else if (tlsRuntimeDepth > 0) {
      return;  // the runtime's own driver call: its runtime call is the one drawn
    }
    *info->correlationData = nowNs();
    return;
  }
  uint64_t startNs = *info->correlationData;
  if (runtime) {
    // A call already open when collection began (cuInit runs inside it) has no entry: skip it.
    if (startNs == 0 || tlsRuntimeDepth == 0) return;
    tlsRuntimeDepth--;
  } else if (tlsRuntimeDepth > 0 || startNs == 0) {
    return;
  }
  ApiCallRecord call;
  call.startNs = startNs;
  call.endNs = nowNs();
  call.correlationId = info->correlationId;
  call.threadId = threadId();
  call.cbid = cbid;
  call.domain = static_cast<uint32_t>(domain);
  push(call);
}

size_t drainApiCalls(std::vector<ApiCallRecord>& out) {
  size_t before = out.size();
  for (ThreadRing& r : rings) {
    uint32_t state = r.state.load(std::memory_order_acquire);
    if (state == kFree) continue;
    uint64_t tail = r.tail.load(std::memory_order_relaxed);
    uint64_t head = r.head.load(std::memory_order_acquire);
    for (uint64_t i = tail; i < head; i++) out.push_back(r.entries[i & (kApiRingEntries - 1)]);
    r.tail.store(head, std::memory_order_release);
    if (state == kRetired) {
      // Its thread is gone and wrote nothing after retiring: the slot (and its ring) is free.
      uint32_t expected = kRetired;
      r.state.compare_exchange_strong(expected, kFree, std::memory_order_acq_rel);
    }
  }
  return out.size() - before;
}

uint64_t apiCallsDropped() {
  uint64_t n = unringed.load(std::memory_order_relaxed);
  for (const ThreadRing& r : rings) n += r.dropped.load(std::memory_order_relaxed);
  return n;
}

}  // namespace streamscope
