// CUDA API calls recorded by our own CUPTI callback instead of CUPTI's API activity records
// (STREAMSCOPE_PROFILE_API_CALLBACK=1; off by default).
//
// The idea: CUPTI's DRIVER activity records every driver call the runtime makes inside a runtime
// call (cudaLaunchKernel -> cuLaunchKernel...), and the recorder then drops those as nested.
// Here the callback keeps a per-thread count of open runtime calls and records a driver call only
// when none encloses it (cuBLAS's own cuLaunchKernelEx, NCCL's launches), writing both kinds into
// a ring of the calling thread: no lock, no allocation after the thread's first call, no CUPTI
// activity buffer. Our flush thread drains the rings.
// Measured (fixtures/runs/profile-h100.txt, per_call on an H100, median of 2 rounds): µs added
// per empty-kernel launch 2.36 with it against 2.30 with the activity records, per 256-byte
// memset 1.59 against 1.00: no gain beyond the runs' noise, so the activity records stay the
// default. Four callbacks per launch (runtime and driver, entry and exit) cost what CUPTI's own
// records cost.
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
