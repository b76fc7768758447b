#include "kernels.h"

namespace streamscope {

namespace {

__device__ float workSink;

__device__ __forceinline__ uint64_t globalTimerNs() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void timedSpinKernel(uint64_t durNs) {
  extern __shared__ unsigned char occupancy[];  // dynamic shared memory only limits residency
  (void)occupancy;
  // %globaltimer is wall-clock ns (32 ns steps on H200): independent of SM clocks and of what
  // else runs, so the requested duration holds under contention.
  uint64_t deadline = globalTimerNs() + durNs;
  while (globalTimerNs() < deadline) {
  }
}

__global__ void fixedWorkKernel(uint64_t iterations) {
  extern __shared__ unsigned char occupancy[];
  (void)occupancy;
  float x = static_cast<float>(threadIdx.x) * 1e-7f + 1.0f;
  float y = 0.999f;
  for (uint64_t i = 0; i < iterations; i++) {
    x = fmaf(x, y, 1e-7f);  // a dependent chain: one FMA latency per step
  }
  if (x == 12345.678f) {
    workSink = x;  // never true in practice; keeps the loop alive
  }
}

__global__ void faultKernel(int* volatile nowhere) { *nowhere = 1; }

}  // namespace

cudaError_t launchTimedSpin(const LaunchShape& s, uint64_t durNs, cudaStream_t stream) {
  timedSpinKernel<<<s.grid, s.block, s.sharedMemBytes, stream>>>(durNs);
  return cudaGetLastError();
}

cudaError_t launchFixedWork(const LaunchShape& s, uint64_t iterations, cudaStream_t stream) {
  fixedWorkKernel<<<s.grid, s.block, s.sharedMemBytes, stream>>>(iterations);
  return cudaGetLastError();
}

cudaError_t launchFault(cudaStream_t stream) {
  faultKernel<<<1, 1, 0, stream>>>(nullptr);
  return cudaGetLastError();
}

}  // namespace streamscope
