/** The event keys the scanner keeps (also bit positions for spotting a key given twice). */
export const enum TopKey {
  Ph,
  Cat,
  Name,
  Pid,
  Tid,
  Ts,
  Dur,
  Args,
  /** A flow's (and an async event's) id, and a flow end's binding point. */
  Id,
  Bp,
  Other,
}

/** The keys of `args` the scanner keeps. */
export const enum ArgKey {
  Device,
  Stream,
  Context,
  Correlation,
  Bytes,
  Size,
  RecordCorrelation,
  SharedMemory,
  Registers,
  Grid,
  Block,
  /** XLA's `memcpy_details` ("kind_src:device kind_dst:pinned size:4 …"). */
  MemcpyDetails,
  /** XLA's `kernel_details` ("regs:168 … grid:64,2,1 block:384,1,1 …"). */
  KernelDetails,
  Other,
}

const encoder = new TextEncoder();
const sharedMemory = encoder.encode('shared memory');
const registers = encoder.encode('registers per thread');
const recordCorrelation = encoder.encode('wait_on_cuda_event_record_corr_id');
const correlation = encoder.encode('correlation');
const context = encoder.encode('context');
const device = encoder.encode('device');
const stream = encoder.encode('stream');
// XLA (JAX, TensorFlow) profiles name the correlation `correlation_id`, nsys-to-Chrome
// converters `correlationId`.
const correlationId = encoder.encode('correlation_id');
const correlationIdCamel = encoder.encode('correlationId');
const memcpyDetails = encoder.encode('memcpy_details');
const kernelDetails = encoder.encode('kernel_details');

/** Whether `buf[start…]` holds `name` (the caller has checked the length). */
function same(buf: Uint8Array, start: number, name: Uint8Array): boolean {
  for (let k = 0; k < name.length; k++) {
    if (buf[start + k] !== name[k]) {
      return false;
    }
  }
  return true;
}

/**
 * An event key by its raw bytes (`length` bytes at `buf[start]`): raw bytes suffice, since the
 * scanner leaves keys with escapes to JSON.parse. By length, then bytes: most keys are rejected
 * by their length alone.
 */
export function topKeyOf(buf: Uint8Array, start: number, length: number): TopKey {
  const a = buf[start];
  const b = buf[start + 1];
  switch (length) {
    case 2:
      if (a === 0x70 && b === 0x68) {
        return TopKey.Ph;
      }
      if (a === 0x69 && b === 0x64) {
        return TopKey.Id;
      }
      if (a === 0x62 && b === 0x70) {
        return TopKey.Bp;
      }
      return a === 0x74 && b === 0x73 ? TopKey.Ts : TopKey.Other;
    case 3: {
      const c = buf[start + 2];
      if (a === 0x63 && b === 0x61 && c === 0x74) {
        return TopKey.Cat;
      }
      if (b === 0x69 && c === 0x64) {
        return a === 0x70 ? TopKey.Pid : a === 0x74 ? TopKey.Tid : TopKey.Other;
      }
      return a === 0x64 && b === 0x75 && c === 0x72 ? TopKey.Dur : TopKey.Other;
    }
    case 4: {
      const c = buf[start + 2];
      const d = buf[start + 3];
      if (a === 0x6e && b === 0x61 && c === 0x6d && d === 0x65) {
        return TopKey.Name;
      }
      return a === 0x61 && b === 0x72 && c === 0x67 && d === 0x73 ? TopKey.Args : TopKey.Other;
    }
    default:
      return TopKey.Other;
  }
}

/** A key of `args` by its raw bytes, as `topKeyOf`. */
export function argKeyOf(buf: Uint8Array, start: number, length: number): ArgKey {
  const a = buf[start];
  switch (length) {
    case 4: {
      const b = buf[start + 1];
      const c = buf[start + 2];
      const d = buf[start + 3];
      if (a === 0x73 && b === 0x69 && c === 0x7a && d === 0x65) {
        return ArgKey.Size;
      }
      return a === 0x67 && b === 0x72 && c === 0x69 && d === 0x64 ? ArgKey.Grid : ArgKey.Other;
    }
    case 5: {
      const b = buf[start + 1];
      const c = buf[start + 2];
      const d = buf[start + 3];
      const e = buf[start + 4];
      if (a === 0x62 && b === 0x79 && c === 0x74 && d === 0x65 && e === 0x73) {
        return ArgKey.Bytes;
      }
      return a === 0x62 && b === 0x6c && c === 0x6f && d === 0x63 && e === 0x6b
        ? ArgKey.Block
        : ArgKey.Other;
    }
    case 6:
      if (a === 0x64) {
        return same(buf, start, device) ? ArgKey.Device : ArgKey.Other;
      }
      return a === 0x73 && same(buf, start, stream) ? ArgKey.Stream : ArgKey.Other;
    case 7:
      return a === 0x63 && same(buf, start, context) ? ArgKey.Context : ArgKey.Other;
    case 11:
      return a === 0x63 && same(buf, start, correlation) ? ArgKey.Correlation : ArgKey.Other;
    case 13:
      if (a === 0x63) {
        return same(buf, start, correlationIdCamel) ? ArgKey.Correlation : ArgKey.Other;
      }
      return a === 0x73 && same(buf, start, sharedMemory) ? ArgKey.SharedMemory : ArgKey.Other;
    case 14:
      if (a === 0x63) {
        return same(buf, start, correlationId) ? ArgKey.Correlation : ArgKey.Other;
      }
      if (a === 0x6b) {
        return same(buf, start, kernelDetails) ? ArgKey.KernelDetails : ArgKey.Other;
      }
      return a === 0x6d && same(buf, start, memcpyDetails) ? ArgKey.MemcpyDetails : ArgKey.Other;
    case 20:
      return a === 0x72 && same(buf, start, registers) ? ArgKey.Registers : ArgKey.Other;
    case 33:
      return a === 0x77 && same(buf, start, recordCorrelation)
        ? ArgKey.RecordCorrelation
        : ArgKey.Other;
    default:
      return ArgKey.Other;
  }
}
