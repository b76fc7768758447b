// A small multi-threaded CUDA program for `streamscope profile`: three host threads, each with
// its own non-blocking stream, copy pinned batches in, run kernels, copy results out, memset a
// scratch buffer, and hand work to each other through events; one thread also replays a captured
// CUDA graph, and the legacy default stream gets a kernel. NVTX ranges name each step.
//
//   nvcc -O2 -std=c++17 -arch=sm_90 -o multi_thread multi_thread.cu
//   ./multi_thread [iterations]
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    cudaError_t status_ = (call);                                                                \
    if (status_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(status_)); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

__global__ void scale(float* data, int n, float factor, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = data[i];
  for (int r = 0; r < rounds; r++) v = v * factor + 1.0f / (1.0f + v * v);
  data[i] = v;
}

__global__ void accumulate(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += in[i];
}

constexpr int kThreads = 3;
constexpr int kElements = 1 << 22;  // 16 MiB of floats per buffer

struct Worker {
  cudaStream_t stream = nullptr;
  float* host = nullptr;    // pinned
  float* device = nullptr;
  float* scratch = nullptr;
  cudaEvent_t done = nullptr;  // recorded after this worker's kernels each iteration
};

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 20;
  std::vector<Worker> workers(kThreads);
  float* shared = nullptr;
  CHECK(cudaMalloc(&shared, kElements * sizeof(float)));
  CHECK(cudaMemset(shared, 0, kElements * sizeof(float)));
  for (Worker& w : workers) {
    CHECK(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking));
    CHECK(cudaMallocHost(&w.host, kElements * sizeof(float)));
    CHECK(cudaMalloc(&w.device, kElements * sizeof(float)));
    CHECK(cudaMalloc(&w.scratch, kElements * sizeof(float)));
    CHECK(cudaEventCreateWithFlags(&w.done, cudaEventDisableTiming));
    for (int i = 0; i < kElements; i++) w.host[i] = 1.0f + static_cast<float>(i % 7);
  }

  // A graph of two kernels on worker 0's buffers, captured once and replayed each iteration.
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t graphExec = nullptr;
  const int blocks = (kElements + 255) / 256;
  CHECK(cudaStreamBeginCapture(workers[0].stream, cudaStreamCaptureModeThreadLocal));
  scale<<<blocks, 256, 0, workers[0].stream>>>(workers[0].scratch, kElements, 0.5f, 4);
  accumulate<<<blocks, 256, 0, workers[0].stream>>>(workers[0].scratch, workers[0].device, kElements);
  CHECK(cudaStreamEndCapture(workers[0].stream, &graph));
  CHECK(cudaGraphInstantiate(&graphExec, graph, 0));

  auto work = [&](int t) {
    Worker& w = workers[t];
    Worker& next = workers[(t + 1) % kThreads];
    std::string name = "worker " + std::to_string(t);
    nvtxRangePushA(name.c_str());
    for (int it = 0; it < iterations; it++) {
      nvtxRangePushA("iteration");
      CHECK(cudaMemcpyAsync(w.device, w.host, kElements * sizeof(float), cudaMemcpyHostToDevice, w.stream));
      CHECK(cudaMemsetAsync(w.scratch, 0, kElements * sizeof(float), w.stream));
      scale<<<blocks, 256, 0, w.stream>>>(w.device, kElements, 0.999f, 32 + 8 * t);
      // Wait for the next worker's last kernels before reading its buffer.
      CHECK(cudaStreamWaitEvent(w.stream, next.done, 0));
      accumulate<<<blocks, 256, 0, w.stream>>>(w.device, w.scratch, kElements);
      if (t == 0) CHECK(cudaGraphLaunch(graphExec, w.stream));
      CHECK(cudaEventRecord(w.done, w.stream));
      CHECK(cudaMemcpyAsync(w.host, w.device, kElements * sizeof(float), cudaMemcpyDeviceToHost, w.stream));
      CHECK(cudaStreamSynchronize(w.stream));
      nvtxRangePop();
    }
    nvtxRangePop();
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) threads.emplace_back(work, t);
  for (std::thread& th : threads) th.join();

  nvtxMarkA("threads joined");
  // The legacy default stream: one kernel that orders against every blocking stream.
  scale<<<blocks, 256>>>(shared, kElements, 1.0f, 1);
  CHECK(cudaDeviceSynchronize());

  double checksum = 0;
  for (int i = 0; i < kElements; i += 4096) checksum += workers[0].host[i];
  std::printf("multi_thread: %d threads x %d iterations, checksum %.3f\n", kThreads, iterations, checksum);
  CHECK(cudaGraphExecDestroy(graphExec));
  CHECK(cudaGraphDestroy(graph));
  for (Worker& w : workers) {
    CHECK(cudaEventDestroy(w.done));
    CHECK(cudaFree(w.scratch));
    CHECK(cudaFree(w.device));
    CHECK(cudaFreeHost(w.host));
    CHECK(cudaStreamDestroy(w.stream));
  }
  CHECK(cudaFree(shared));
  return 0;
}
