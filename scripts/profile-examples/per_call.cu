// What a tracer adds to each CUDA call, apart from a training loop's noise: the same calls made
// many times, in batches small enough that the launch queue never fills (each batch ends with a
// stream synchronize), so the host time of the issuing loop is the calls' own cost.
//
//   nvcc -O2 -std=c++17 -arch=sm_90 -o per_call per_call.cu
//   ./per_call [calls per repetition] [repetitions] [CASE,CASE...]   (default: every case)
//
// Prints one line per case: `per_call CASE issue_us=X wall_us=Y` where X is the median over
// repetitions of host time per call spent issuing (the calls alone), and Y the median wall time
// per call including the wait for the GPU. Cases:
//   launch   an empty kernel (<<<1, 32>>>, cudaLaunchKernel)
//   copy     a 256-byte cudaMemcpyAsync from pinned host memory to the device
//   memset   a 256-byte cudaMemsetAsync
//   event    cudaEventRecord on one stream and cudaStreamWaitEvent on another (per pair)
//   nvtx     nvtxRangePushA + nvtxRangePop (per pair)
//   query    cudaGetDevice (a call tracers leave out)
//   graph    one kernel node of a 256-node graph of empty kernels (wall only: the GPU's cost of
//            tracing each kernel, with almost no host work per kernel)
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CHECK(call)                                                                                  \
  do {                                                                                               \
    cudaError_t status_ = (call);                                                                    \
    if (status_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(status_)); \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

__global__ void empty() {}

namespace {

constexpr int kBatch = 256;  // calls between synchronizes: far below the launch queue's depth
constexpr size_t kCopyBytes = 256;

using Clock = std::chrono::steady_clock;

double usSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

const char* gCases = nullptr;  // the cases to run (a comma list), or nullptr for all

bool wanted(const char* name) {
  if (gCases == nullptr) return true;
  std::string list = std::string(",") + gCases + ",";
  return list.find(std::string(",") + name + ",") != std::string::npos;
}

// Runs `call` `calls` times per repetition, in batches of kBatch followed by `sync`; prints the
// medians (after one repetition of warm-up).
void measure(const char* name, int calls, int repetitions, const std::function<void()>& call,
             const std::function<void()>& sync, bool wallOnly = false) {
  if (!wanted(name)) return;
  std::vector<double> issueUs;
  std::vector<double> wallUs;
  for (int rep = 0; rep <= repetitions; rep++) {
    double issued = 0;
    Clock::time_point start = Clock::now();
    for (int done = 0; done < calls; done += kBatch) {
      Clock::time_point t0 = Clock::now();
      for (int i = 0; i < kBatch; i++) call();
      issued += usSince(t0);
      sync();
    }
    double wall = usSince(start);
    if (rep == 0) continue;  // warm-up
    issueUs.push_back(issued / calls);
    wallUs.push_back(wall / calls);
  }
  if (wallOnly) {
    std::printf("per_call %s wall_us=%.4f\n", name, median(wallUs));
  } else {
    std::printf("per_call %s issue_us=%.4f wall_us=%.4f\n", name, median(issueUs), median(wallUs));
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int calls = argc > 1 ? std::atoi(argv[1]) : 51200;
  int repetitions = argc > 2 ? std::atoi(argv[2]) : 5;
  gCases = argc > 3 ? argv[3] : nullptr;
  if (calls < kBatch || repetitions < 1) {
    std::fprintf(stderr, "usage: per_call [calls >= %d] [repetitions >= 1] [CASE,...]\n", kBatch);
    return 2;
  }
  calls = calls / kBatch * kBatch;
  cudaStream_t stream = nullptr;
  cudaStream_t other = nullptr;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  void* host = nullptr;
  void* device = nullptr;
  CHECK(cudaMallocHost(&host, kCopyBytes));
  CHECK(cudaMalloc(&device, kCopyBytes));
  cudaEvent_t event = nullptr;
  CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  auto syncStream = [&] { CHECK(cudaStreamSynchronize(stream)); };
  auto syncBoth = [&] {
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaStreamSynchronize(other));
  };

  measure("launch", calls, repetitions, [&] { empty<<<1, 32, 0, stream>>>(); }, syncStream);
  measure("copy", calls, repetitions,
          [&] { CHECK(cudaMemcpyAsync(device, host, kCopyBytes, cudaMemcpyHostToDevice, stream)); }, syncStream);
  measure("memset", calls, repetitions, [&] { CHECK(cudaMemsetAsync(device, 0, kCopyBytes, stream)); },
          syncStream);
  measure("event", calls, repetitions,
          [&] {
            CHECK(cudaEventRecord(event, stream));
            CHECK(cudaStreamWaitEvent(other, event, 0));
          },
          syncBoth);
  measure("nvtx", calls, repetitions,
          [] {
            nvtxRangePushA("per_call");
            nvtxRangePop();
          },
          [] {});
  int deviceOrdinal = 0;
  measure("query", calls, repetitions, [&] { CHECK(cudaGetDevice(&deviceOrdinal)); }, [] {});

  // A graph of kBatch empty kernels: one launch per batch, so the wall time per kernel is the
  // GPU's (plus a tracer's per-kernel work), with almost no host cost per kernel.
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < kBatch; i++) empty<<<1, 32, 0, stream>>>();
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  int graphLaunch = 0;
  measure("graph", calls, repetitions,
          [&] {
            // One graph launch stands for kBatch kernels: launch on the first call of each batch.
            if (graphLaunch++ % kBatch == 0) CHECK(cudaGraphLaunch(exec, stream));
          },
          syncStream, true);

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaEventDestroy(event));
  CHECK(cudaFree(device));
  CHECK(cudaFreeHost(host));
  CHECK(cudaStreamDestroy(other));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
