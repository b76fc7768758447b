#include "probe.h"

#include <chrono>
#include <cstdlib>
#include <string>

#include "check.h"
#include "cupti-api.h"
#include "cupti-session.h"
#include "nccl-api.h"

namespace streamscope {

namespace {

std::string errorText(cudaError_t st) {
  return std::string(cudaGetErrorName(st)) + " (" + std::to_string(static_cast<int>(st)) +
         "): " + cudaGetErrorString(st);
}

Napi::Object deviceInfo(Napi::Env env, int d) {
  Napi::Object o = Napi::Object::New(env);
  cudaDeviceProp prop{};
  o.Set("deviceId", d);
  if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
    o.Set("name", "unknown");
    return o;
  }
  o.Set("name", prop.name);
  o.Set("smCount", prop.multiProcessorCount);
  o.Set("copyEngineCount", prop.asyncEngineCount);
  o.Set("memoryBytes", static_cast<double>(prop.totalGlobalMem));
  o.Set("computeCapability", std::to_string(prop.major) + "." + std::to_string(prop.minor));
  char bus[32] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, d) == cudaSuccess) o.Set("pciBusId", bus);
  int clockKHz = 0;
  if (cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, d) == cudaSuccess) o.Set("clockRateKHz", clockKHz);
  int least = 0;
  int greatest = 0;
  if (cudaSetDevice(d) == cudaSuccess && cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess) {
    Napi::Array range = Napi::Array::New(env, 2);
    range.Set(0u, greatest);
    range.Set(1u, least);
    o.Set("priorityRange", range);
  }
  o.Set("concurrentKernels", prop.concurrentKernels != 0);
  return o;
}

}  // namespace

Napi::Object probe(Napi::Env env) {
  Napi::Object result = Napi::Object::New(env);
  result.Set("built", true);
  Napi::Object cuda = Napi::Object::New(env);
  int runtime = 0;
  int driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  cuda.Set("runtimeVersion", runtime);
  cuda.Set("driverVersion", driver);
  int count = 0;
  cudaError_t st = cudaGetDeviceCount(&count);
  Napi::Array devices = Napi::Array::New(env);
  if (st != cudaSuccess) {
    cuda.Set("ok", false);
    cuda.Set("errorName", cudaGetErrorName(st));
    cuda.Set("error", "cudaGetDeviceCount: " + errorText(st));
  } else if (count == 0) {
    cuda.Set("ok", false);
    cuda.Set("errorName", "cudaErrorNoDevice");
    cuda.Set("error", "no CUDA device");
  } else {
    cuda.Set("ok", true);
    for (int d = 0; d < count; d++) devices.Set(static_cast<uint32_t>(d), deviceInfo(env, d));
  }
  cuda.Set("devices", devices);
  result.Set("cuda", cuda);

  Napi::Object cupti = Napi::Object::New(env);
  const CuptiApi& api = cuptiApi();
  cupti.Set("ok", api.loaded());
  if (api.loaded()) {
    cupti.Set("version", cuptiVersion());
    cupti.Set("library", api.path);
  } else {
    cupti.Set("error", api.error);
  }
  result.Set("cupti", cupti);
  // NCCL is loaded only to answer this and for plans with collectives: a missing NCCL is no
  // error for anything else.
  Napi::Object nccl = Napi::Object::New(env);
  const NcclApi& n = ncclApi();
  nccl.Set("ok", n.loaded());
  if (n.loaded()) {
    nccl.Set("version", n.version);
    nccl.Set("library", n.path);
  } else {
    nccl.Set("error", n.error);
  }
  result.Set("nccl", nccl);
  return result;
}

double copyBandwidth(int device, bool hostToDevice, bool pinned, size_t bytes, int reps) {
  SS_CUDA_CHECK(cudaSetDevice(device));
  void* dev = nullptr;
  void* host = nullptr;
  SS_CUDA_CHECK(cudaMalloc(&dev, bytes));
  if (pinned) {
    SS_CUDA_CHECK(cudaMallocHost(&host, bytes));
  } else {
    host = std::malloc(bytes);
    if (host == nullptr) SS_FAIL("out of host memory");
  }
  cudaStream_t stream = nullptr;
  SS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  auto once = [&] {
    SS_CUDA_CHECK(hostToDevice ? cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream)
                               : cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, stream));
  };
  once();  // warm-up: first-touch and mapping costs stay out of the figure
  SS_CUDA_CHECK(cudaStreamSynchronize(stream));
  // Back to back, one wait at the end: the copy engine's own rate, no per-call host gaps.
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; i++) once();
  SS_CUDA_CHECK(cudaStreamSynchronize(stream));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  cudaStreamDestroy(stream);
  cudaFree(dev);
  if (pinned) {
    cudaFreeHost(host);
  } else {
    std::free(host);
  }
  return static_cast<double>(bytes) * reps / seconds;
}

}  // namespace streamscope
