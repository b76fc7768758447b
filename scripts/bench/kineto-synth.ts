/**
 * A PyTorch-profiler (kineto) trace written the way the profiler writes one, for the import
 * bench: per step a CPU op, its cudaLaunchKernel, the kernel and the launch flow; every eighth
 * step a cudaMemcpyAsync and its copy. Timestamps are µs with three decimals (ns), counted from
 * `baseUs`: about 4.5e12 for a trace relative to `baseTimeNanoseconds`, about 1.7e15 for one in
 * µs since 1970. Deterministic, so every run and machine reads the same bytes.
 */
export function syntheticKinetoTrace(steps: number, baseUs: number): Uint8Array {
  const pid = 4242;
  const tid = 4250;
  const parts: string[] = [
    '{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3","totalGlobalMem":85017493504,"computeMajor":9,"computeMinor":0,"numSms":132}],',
    '"displayTimeUnit":"ms","traceEvents":[\n',
  ];
  // Times in integer ns from the base; written as µs with three decimals.
  const at = (ns: number): string => {
    const us = Math.floor(ns / 1000);
    return `${baseUs + us}.${String(ns - us * 1000).padStart(3, '0')}`;
  };
  let ns = 1_000_000;
  let gpuNs = ns;
  for (let step = 0; step < steps; step++) {
    const corr = step * 2 + 17;
    const ext = step + 100;
    const grid = 64 + (step % 512);
    parts.push(
      `{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":${pid},"tid":${tid},"ts":${at(ns)},"dur":${(9.871 + (step % 7)).toFixed(3)},"args":{"External id":${ext},"Record function id":0,"Ev Idx":${step}}},\n`,
      `{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":${pid},"tid":${tid},"ts":${at(ns + 2113)},"dur":4.127,"args":{"External id":${ext},"cbid":211,"correlation":${corr}}},\n`,
      `{"ph":"s","id":${corr},"pid":${pid},"tid":${tid},"ts":${at(ns + 2113)},"cat":"ac2g","name":"ac2g"},\n`,
    );
    gpuNs = Math.max(gpuNs, ns + 7_000) + 311;
    const kernelNs = 2_000 + ((step * 37) % 5_000);
    parts.push(
      `{"ph":"X","cat":"kernel","name":"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)","pid":0,"tid":7,"ts":${at(gpuNs)},"dur":${(kernelNs / 1000).toFixed(3)},"args":{"External id":${ext},"queued":0,"device":0,"context":1,"stream":7,"correlation":${corr},"registers per thread":26,"shared memory":0,"blocks per SM":${(grid / 132).toFixed(6)},"warps per SM":${((grid * 4) / 132).toFixed(6)},"grid":[${grid},1,1],"block":[128,1,1],"est. achieved occupancy %":100}},\n`,
      `{"ph":"f","id":${corr},"pid":0,"tid":7,"ts":${at(gpuNs)},"cat":"ac2g","name":"ac2g","bp":"e"},\n`,
    );
    gpuNs += kernelNs;
    if (step % 8 === 7) {
      const copyCorr = corr + 1;
      parts.push(
        `{"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":${pid},"tid":${tid},"ts":${at(ns + 6_000)},"dur":5.502,"args":{"External id":${ext},"cbid":41,"correlation":${copyCorr}}},\n`,
        `{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":14,"ts":${at(gpuNs)},"dur":12.513,"args":{"External id":${ext},"device":0,"context":1,"stream":14,"correlation":${copyCorr},"bytes":524288,"memory bandwidth (GB/s)":41.89946455686086}},\n`,
      );
    }
    ns += 11_000 + ((step * 13) % 3_000);
  }
  parts.push(
    `{"name":"process_name","ph":"M","ts":${at(0)},"pid":${pid},"tid":0,"args":{"name":"python3"}},\n`,
    `{"name":"thread_name","ph":"M","ts":${at(0)},"pid":${pid},"tid":${tid},"args":{"name":"thread ${tid} (python3)"}}\n`,
    ']}\n',
  );
  return new TextEncoder().encode(parts.join(''));
}
