import { describe, expect, it } from 'vitest';
import { shortKernelName } from './kernel-names.ts';

describe('shortKernelName', () => {
  it('keeps the base name of a demangled C++ signature, as Nsight Systems short names do', () => {
    expect(
      shortKernelName(
        'void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies<float>, float)',
      ),
    ).toBe('multi_tensor_apply_kernel');
    expect(
      shortKernelName(
        'void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> const&)::{lambda(int)#1})',
      ),
    ).toBe('elementwise_kernel');
    expect(
      shortKernelName(
        'void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>(float*, float const*, int, int, int, bool const*, int, bool)',
      ),
    ).toBe('softmax_warp_forward');
    expect(
      shortKernelName('ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)'),
    ).toBe('ncclDevKernel_AllReduce_Sum_f32_RING_LL');
    expect(
      shortKernelName('void ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)'),
    ).toBe('ncclDevKernel_SendRecv');
  });

  it("keeps a generic base's first template argument", () => {
    expect(
      shortKernelName(
        'void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>(cutlass_80_simt_sgemm_64x64_8x5_nn_align1::Params)',
      ),
    ).toBe('Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>');
    expect(
      shortKernelName(
        'void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<float, 4> >(Params)',
      ),
    ).toBe('device_kernel<cutlass::gemm::kernel::GemmUniversal<float, 4>>');
  });

  it('leaves plain names as they are and cuts only what is still too long', () => {
    for (const name of [
      'ampere_sgemm_128x64_tn',
      'triton_poi_fused_add_0',
      '_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE',
      'backward layer 3',
      '',
    ]) {
      expect(shortKernelName(name)).toBe(name);
    }
    const long = `k_${'x'.repeat(200)}`;
    expect(shortKernelName(long)).toHaveLength(100);
    expect(shortKernelName(long).endsWith('…')).toBe(true);
    // Unbalanced brackets (a name cut short by its exporter) still give a name.
    expect(shortKernelName('void foo::bar<int, (float')).toBe('bar');
  });
});
