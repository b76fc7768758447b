import { describe, expect, it } from 'vitest';
import { OpKind, RangeKind, Trace } from '@streamscope/trace';
import { compare, kernelKey, statsOf } from './compare.ts';

describe('kernelKey', () => {
  it('gives nsys’s and the C++ runtime’s spelling of one PyTorch kernel the same key', () => {
    // Both as recorded on the H100 for the same kernel (torch_streams.py).
    const runtime =
      'void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase&, float)::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase&, float)::{lambda(float)#1}, std::array<char*, 2ul>)';
    const nsys =
      'void at::native::vectorized_elementwise_kernel<(int)4, at::native::<unnamed>::pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase &, T2)::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)';
    expect(kernelKey(runtime)).toBe(kernelKey(nsys));
  });

  it('keeps kernels that differ apart', () => {
    expect(kernelKey('scale(float*, int, float, int)')).not.toBe(
      kernelKey('accumulate(float const*, float*, int)'),
    );
    expect(kernelKey('k<(int)4>(int)')).not.toBe(kernelKey('k<(int)8>(int)'));
  });
});

function trace(kernelNs: number): Trace {
  const t = new Trace();
  const thread = t.addTrack({ kind: 'host-thread', name: '', pid: 1, tid: 1 });
  const stream = t.addTrack({
    kind: 'gpu-stream',
    name: '',
    pid: 1,
    deviceId: 0,
    contextId: 1,
    streamId: 7,
    streamType: 'legacy-default',
    priority: 0,
  });
  t.addOp({
    startNs: 0,
    endNs: kernelNs,
    track: stream,
    kind: OpKind.Kernel,
    nameId: t.strings.intern('k(int)'),
  });
  t.addOp({ startNs: 0, endNs: 5, track: stream, kind: OpKind.CopyHtoD, nameId: 0, bytes: 64 });
  t.ranges.append({
    startNs: 0,
    endNs: 9,
    track: thread,
    nameId: t.strings.intern('step'),
    domainId: 0,
    depth: 0,
    kind: RangeKind.PushPop,
  });
  return t;
}

describe('compare', () => {
  it('agrees within 5 % and flags a kernel total 6 % off', () => {
    const nsys = statsOf(trace(1000));
    expect(compare(statsOf(trace(1040)), nsys).filter((l) => l.startsWith('DISAGREES'))).toEqual(
      [],
    );
    expect(compare(statsOf(trace(1060)), nsys).filter((l) => l.startsWith('DISAGREES'))).toEqual([
      'DISAGREES: kernel k: 1/1 launches, total 1060/1000 ns',
    ]);
  });
});
