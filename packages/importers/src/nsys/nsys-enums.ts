import { MemKind, OpKind } from '@streamscope/trace';

/** nsys copyKind (ENUM_CUDA_MEMCPY_OPER) → op kind. Arrays count as device memory. */
export function copyOpKind(copyKind: number): number {
  switch (copyKind) {
    case 1: // HtoD
    case 3: // HtoA
    case 11: // UVM HtoD migration
      return OpKind.CopyHtoD;
    case 2: // DtoH
    case 4: // AtoH
    case 12: // UVM DtoH migration
      return OpKind.CopyDtoH;
    case 9:
      return OpKind.CopyHtoH;
    case 10:
      return OpKind.CopyPtoP;
    case 5: // AtoA
    case 6: // AtoD
    case 7: // DtoA
    case 8: // DtoD
    case 13: // UVM DtoD
      return OpKind.CopyDtoD;
    default:
      return -1;
  }
}

/**
 * nsys memory kind (ENUM_CUDA_MEM_KIND: 0 Pageable … 6 Managed Static, 7 Unknown) → MemKind.
 * nsys is shifted by one from CUPTI's raw enum, and from ours: ours = nsys + 1, Unknown = 0.
 */
export function nsysMemKind(kind: number): MemKind {
  return kind >= 0 && kind <= 6 ? ((kind + 1) as MemKind) : MemKind.Unknown;
}

/** "No event" / "no stream" in nsys sync rows (CUPTI_SYNCHRONIZATION_INVALID_VALUE). */
export const noId32 = 0xffffffff;

/** ENUM_CUPTI_STREAM_TYPE: 1 Default (blocking), 2 Non-blocking, 3 Null stream. */
export function streamTypeFromFlag(
  flag: number,
): 'blocking' | 'non-blocking' | 'legacy-default' | 'unknown' {
  switch (flag) {
    case 1:
      return 'blocking';
    case 2:
      return 'non-blocking';
    case 3:
      return 'legacy-default';
    default:
      return 'unknown';
  }
}

/** TraceProcessEvent / CUPTI_ACTIVITY_KIND_RUNTIME eventClass of CUDA API calls (runtime, driver). */
export function isCudaApiClass(eventClass: number): boolean {
  return eventClass === 0 || eventClass === 1;
}

export const copyKindLabel: Record<number, string> = {
  [OpKind.CopyHtoD]: 'Memcpy HtoD',
  [OpKind.CopyDtoH]: 'Memcpy DtoH',
  [OpKind.CopyDtoD]: 'Memcpy DtoD',
  [OpKind.CopyPtoP]: 'Memcpy PtoP',
  [OpKind.CopyHtoH]: 'Memcpy HtoH',
};
