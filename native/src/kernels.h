// The two kernels a workload can launch. Both return the launch's status without throwing, so
// the issue loop can time the call and report the error with the op that caused it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace streamscope {

struct LaunchShape {
  dim3 grid{1, 1, 1};
  dim3 block{32, 1, 1};
  unsigned sharedMemBytes = 0;
};

/** Each block spins on %globaltimer for durNs from its own start (one wave: the kernel lasts durNs;
 * more blocks than fit at once run in waves, each wave durNs). */
cudaError_t launchTimedSpin(const LaunchShape& shape, uint64_t durNs, cudaStream_t stream);
/** Each thread runs a dependent FMA chain of `iterations` steps: slows down when SMs are shared. */
cudaError_t launchFixedWork(const LaunchShape& shape, uint64_t iterations, cudaStream_t stream);
/** A kernel that faults (writes through a null pointer): for the fault tests. */
cudaError_t launchFault(cudaStream_t stream);

}  // namespace streamscope
