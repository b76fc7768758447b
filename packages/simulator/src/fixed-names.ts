/**
 * Names the simulator writes for every op of their kind. `TraceWriter.fixed` interns each on
 * first use (so the string table keeps the order in which names first appear) and then reads
 * its id from an array instead of hashing the text again.
 */
export const FixedName = {
  EventRecord: 0,
  StreamWait: 1,
  Memset: 2,
  MemcpyHtoD: 3,
  MemcpyDtoH: 4,
  MemcpyDtoD: 5,
  MemcpyPtoP: 6,
  MemcpyHtoH: 7,
  CudaLaunchKernel: 8,
  CudaMemset: 9,
  CudaMemsetAsync: 10,
  CudaLaunchHostFunc: 11,
  CudaMemcpy: 12,
  CudaMemcpyAsync: 13,
  CudaMemcpyPeer: 14,
  CudaMemcpyPeerAsync: 15,
  CudaEventRecord: 16,
  CudaStreamWaitEvent: 17,
  None: 18,
} as const;
export type FixedName = (typeof FixedName)[keyof typeof FixedName];

/** The text of each FixedName, by its value. */
export const fixedNameTexts: readonly string[] = [
  'event record',
  'stream wait',
  'memset',
  'memcpy HtoD',
  'memcpy DtoH',
  'memcpy DtoD',
  'memcpy PtoP',
  'memcpy HtoH',
  'cudaLaunchKernel',
  'cudaMemset',
  'cudaMemsetAsync',
  'cudaLaunchHostFunc',
  'cudaMemcpy',
  'cudaMemcpyAsync',
  'cudaMemcpyPeer',
  'cudaMemcpyPeerAsync',
  'cudaEventRecord',
  'cudaStreamWaitEvent',
  '',
];
