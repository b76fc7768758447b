// CUDA API calls recorded by our own CUPTI callback instead of CUPTI's API activity records.
//
// Why (scripts/bench/profile-per-call.ts on an H100): CUPTI's DRIVER activity records every
// driver call the runtime makes inside a runtime call (cudaLaunchKernel -> cuLaunchKernel...),
// about 0.8-1.1 µs more per runtime call, and the recorder then threw those records away as
// nested. Here the callback keeps a per-thread count of open runtime calls and records a driver
// call only when none encloses it (cuBLAS's own cuLaunchKernelEx, NCCL's launches), and it writes
// both kinds into a ring of the calling thread: no lock, no allocation after the thread's first
// call, no CUPTI activity buffer. Our flush thread drains the rings.
#pragma once

#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace streamscope {

/** One runtime or driver call, as the flush thread receives it. */
struct ApiCallRecord {
  uint64_t startNs = 0;  // CUPTI's clock, like the activity records
  uint64_t endNs = 0;
  uint32_t correlationId = 0;
  uint32_t threadId = 0;  // the kernel's thread id (gettid), as CUPTI's SYSTEM thread ids
  uint32_t cbid = 0;
  uint32_t domain = 0;  // CUPTI_CB_DOMAIN_RUNTIME_API or CUPTI_CB_DOMAIN_DRIVER_API
};

/** Calls one thread's ring holds between two drains; past it, its calls are dropped and counted. */
constexpr size_t kApiRingEntries = 8192;
/** Threads with a ring at once (a thread's ring is reused after the thread exits). */
constexpr size_t kApiRingThreads = 256;

/** The CUPTI subscriber callback (runtime and driver API domains, entry and exit). */
void CUPTIAPI apiCallCallback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                              const void* data);

/** Flush thread only: moves every ring's calls into `out` (appended); returns how many. */
size_t drainApiCalls(std::vector<ApiCallRecord>& out);

/** Calls dropped so far: a full ring, or a thread past kApiRingThreads. */
uint64_t apiCallsDropped();

}  // namespace streamscope
