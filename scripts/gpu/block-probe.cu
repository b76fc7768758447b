// Block-level timeline of timed spin kernels, the ground truth behind the simulator's crowded
// block dispatch and stream priorities (what CUPTI's kernel records cannot show). Built and run
// ON THE GPU MACHINE:
//   nvcc -O2 -arch=sm_90 -o block-probe scripts/gpu/block-probe.cu -lcupti && ./block-probe > blocks.csv
// `./block-probe cupti` records CUPTI's concurrent-kernel activity in the process meanwhile, as
// the executor does when it times a run (the records are counted, not kept).
// Each block spins on %globaltimer for its duration from its first warp's start, as the
// executor's timedSpinKernel does, and its thread 0 writes: SM, first warp start, last warp
// start, last warp end. Experiments (after a warm-up):
//   wave-B      one wave of B blocks of 256 threads per SM, 100 µs (B = 1, 2, 4, 8)
//   bulk        the priorities lesson's bulk kernel: 32 blocks per SM of 256 threads, 100 µs
//   high-X / same-X   bulk, then X µs of host spin, then the lesson's urgent kernel (32 blocks
//               of 256 threads, 20 µs) on a high-priority / same-priority stream
// Output CSV: experiment,rep,kernel,block,sm,startNs,lastWarpStartNs,endNs, times relative to
// the bulk's (or the wave's) earliest block start.
#include <cuda_runtime.h>
#include <cupti.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ uint64_t nowNs() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned smId() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

struct BlockRecord {
  unsigned long long start;
  unsigned long long lastStart;
  unsigned long long end;
  unsigned long long sm;
};

__global__ void probeSpin(uint64_t durNs, BlockRecord* out) {
  __shared__ unsigned long long first, last;
  uint64_t t0 = nowNs();
  if (threadIdx.x == 0) {
    first = ~0ull;
    last = 0;
  }
  __syncthreads();
  if ((threadIdx.x & 31) == 0) {
    atomicMin(&first, t0);
    atomicMax(&last, t0);
  }
  uint64_t deadline = t0 + durNs;
  while (nowNs() < deadline) {
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    out[blockIdx.x] = {first, last, nowNs(), smId()};
  }
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

size_t cuptiRecords = 0;

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
  *size = 8 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *maxRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    cuptiRecords++;
  }
  std::free(buffer);
}

void hostSpinUs(double us) {
  auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(int64_t(us * 1000));
  while (std::chrono::steady_clock::now() < until) {
  }
}

struct Kernel {
  const char* name;
  int blocks;
  BlockRecord* dev;
};

void dump(const char* experiment, int rep, const std::vector<Kernel>& kernels, uint64_t base) {
  for (const Kernel& k : kernels) {
    std::vector<BlockRecord> h(k.blocks);
    check(cudaMemcpy(h.data(), k.dev, sizeof(BlockRecord) * k.blocks, cudaMemcpyDeviceToHost),
          "copy");
    for (int b = 0; b < k.blocks; b++) {
      std::printf("%s,%d,%s,%d,%llu,%lld,%lld,%lld\n", experiment, rep, k.name, b, h[b].sm,
                  (long long)(h[b].start - base), (long long)(h[b].lastStart - base),
                  (long long)(h[b].end - base));
    }
  }
}

uint64_t earliest(const Kernel& k) {
  std::vector<BlockRecord> h(k.blocks);
  check(cudaMemcpy(h.data(), k.dev, sizeof(BlockRecord) * k.blocks, cudaMemcpyDeviceToHost),
        "copy");
  uint64_t m = ~0ull;
  for (const BlockRecord& r : h) {
    m = r.start < m ? r.start : m;
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  const bool cupti = argc > 1 && std::strcmp(argv[1], "cupti") == 0;
  if (cupti && (cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted) != CUPTI_SUCCESS ||
                cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS)) {
    std::fprintf(stderr, "CUPTI activity could not be enabled\n");
    return 1;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "props");
  const int sms = prop.multiProcessorCount;
  int least = 0, greatest = 0;
  check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "range");
  cudaStream_t bulk, high, same;
  check(cudaStreamCreateWithPriority(&bulk, cudaStreamNonBlocking, least), "bulk");
  check(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest), "high");
  check(cudaStreamCreateWithPriority(&same, cudaStreamNonBlocking, least), "same");
  BlockRecord *bulkRec, *urgentRec;
  check(cudaMalloc(&bulkRec, sizeof(BlockRecord) * sms * 32), "malloc");
  check(cudaMalloc(&urgentRec, sizeof(BlockRecord) * 32), "malloc");
  std::printf("# device %s, %d SMs, priorities %d..%d, CUPTI kernel activity %s\n", prop.name, sms,
              least, greatest, cupti ? "on" : "off");
  std::printf("experiment,rep,kernel,block,sm,startNs,lastWarpStartNs,endNs\n");
  // Warm-up: clocks up, modules loaded.
  for (int i = 0; i < 20; i++) {
    probeSpin<<<sms * 32, kThreads, 0, bulk>>>(100'000, bulkRec);
  }
  check(cudaDeviceSynchronize(), "warm");
  const int reps = 3;
  for (int rep = 0; rep < reps; rep++) {
    for (int b : {1, 2, 4, 8}) {
      char name[16];
      std::snprintf(name, sizeof name, "wave-%d", b);
      probeSpin<<<sms * b, kThreads, 0, bulk>>>(100'000, bulkRec);
      check(cudaDeviceSynchronize(), name);
      Kernel k{"bulk", sms * b, bulkRec};
      dump(name, rep, {k}, earliest(k));
    }
    probeSpin<<<sms * 32, kThreads, 0, bulk>>>(100'000, bulkRec);
    check(cudaDeviceSynchronize(), "bulk");
    Kernel k{"bulk", sms * 32, bulkRec};
    dump("bulk", rep, {k}, earliest(k));
  }
  // Urgent kernels issued X µs after the bulk launch call.
  for (int rep = 0; rep < reps; rep++) {
    for (int x = 25; x <= 600; x += 25) {
      for (int h = 0; h < 2; h++) {
        cudaStream_t s = h == 0 ? high : same;
        char name[24];
        std::snprintf(name, sizeof name, "%s-%d", h == 0 ? "high" : "same", x);
        probeSpin<<<sms * 32, kThreads, 0, bulk>>>(100'000, bulkRec);
        hostSpinUs(x);
        probeSpin<<<32, kThreads, 0, s>>>(20'000, urgentRec);
        check(cudaDeviceSynchronize(), name);
        Kernel kb{"bulk", sms * 32, bulkRec};
        Kernel ku{"urgent", 32, urgentRec};
        dump(name, rep, {kb, ku}, earliest(kb));
      }
    }
  }
  if (cupti) {
    cuptiActivityFlushAll(0);
    std::printf("# CUPTI kernel records: %zu\n", cuptiRecords);
  }
  return 0;
}
