/** Base names that say nothing without their first template argument (CUTLASS's `Kernel2<…>`). */
const genericBase = /^(?:device_?)?kernel\d*$/i;

/** Names longer than this are cut, with an ellipsis, once shortened. */
const maxProseChars = 100;

/**
 * A kernel's name as a sentence can carry it, as Nsight Systems' short names do: the demangled
 * C++ signature without its return type, namespaces, template arguments and parameters.
 * "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<…>(…)" is
 * "multi_tensor_apply_kernel"; a generic base keeps its first template argument
 * ("Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>"). A plain name (a Triton or cuBLAS
 * kernel, a mangled `_Z…` name, a copy's "Memcpy HtoD (Pinned -> Device)") is left as it is.
 */
export function shortKernelName(name: string): string {
  let s = name.trim().replaceAll('(anonymous namespace)::', '');
  if (!/[<(]|::/.test(s)) {
    return cut(s);
  }
  s = s.replace(/^(?:static\s+)?void\s+/, '');
  const baseEnd = depthZeroIndex(s, '<(');
  let base = baseEnd < 0 ? s : s.slice(0, baseEnd);
  // Without its namespaces (a __global__ function is never a class member).
  const qualifier = base.lastIndexOf('::');
  base = (qualifier < 0 ? base : base.slice(qualifier + 2)).trim();
  if (base === '') {
    return cut(name.trim());
  }
  if (genericBase.test(base) && baseEnd >= 0 && s[baseEnd] === '<') {
    const args = s.slice(baseEnd + 1);
    const firstEnd = depthZeroIndex(args, ',>');
    const first = (firstEnd < 0 ? args : args.slice(0, firstEnd)).trim();
    if (first !== '') {
      return cut(`${base}<${first}>`);
    }
  }
  return cut(base);
}

/** The index of the first of `chars` outside any <…> or (…), or −1. */
function depthZeroIndex(s: string, chars: string): number {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (depth === 0 && chars.includes(c)) {
      return i;
    }
    if (c === '<' || c === '(') {
      depth++;
    } else if ((c === '>' || c === ')') && depth > 0) {
      depth--;
    }
  }
  return -1;
}

function cut(s: string): string {
  return s.length <= maxProseChars ? s : `${s.slice(0, maxProseChars - 1)}…`;
}
