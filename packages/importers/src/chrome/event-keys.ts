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
  Other,
}

const topNames: readonly [string, TopKey][] = [
  ['ph', TopKey.Ph],
  ['cat', TopKey.Cat],
  ['name', TopKey.Name],
  ['pid', TopKey.Pid],
  ['tid', TopKey.Tid],
  ['ts', TopKey.Ts],
  ['dur', TopKey.Dur],
  ['args', TopKey.Args],
];

const argNames: readonly [string, ArgKey][] = [
  ['device', ArgKey.Device],
  ['stream', ArgKey.Stream],
  ['context', ArgKey.Context],
  ['correlation', ArgKey.Correlation],
  ['bytes', ArgKey.Bytes],
  ['size', ArgKey.Size],
  ['wait_on_cuda_event_record_corr_id', ArgKey.RecordCorrelation],
  ['shared memory', ArgKey.SharedMemory],
  ['registers per thread', ArgKey.Registers],
  ['grid', ArgKey.Grid],
  ['block', ArgKey.Block],
];

const maxKeyLength = 40;

/**
 * Finds a key among a few names by its raw bytes: candidates by length, then by first byte,
 * then byte by byte. Raw bytes suffice: the scanner leaves keys with escapes to JSON.parse.
 */
class KeyTable {
  /** Per length: the candidates' bytes and ids. */
  private readonly byLength: { readonly bytes: Uint8Array; readonly id: number }[][] = [];

  constructor(
    names: readonly (readonly [string, number])[],
    private readonly other: number,
  ) {
    for (let n = 0; n <= maxKeyLength; n++) {
      this.byLength.push([]);
    }
    for (const [name, id] of names) {
      this.byLength[name.length]!.push({ bytes: new TextEncoder().encode(name), id });
    }
  }

  find(buf: Uint8Array, start: number, length: number): number {
    if (length > maxKeyLength) {
      return this.other;
    }
    const candidates = this.byLength[length]!;
    for (let c = 0; c < candidates.length; c++) {
      const { bytes, id } = candidates[c]!;
      if (bytes[0] !== buf[start]) {
        continue;
      }
      let k = 1;
      while (k < length && bytes[k] === buf[start + k]) {
        k++;
      }
      if (k === length) {
        return id;
      }
    }
    return this.other;
  }
}

const top = new KeyTable(topNames, TopKey.Other);
const arg = new KeyTable(argNames, ArgKey.Other);

export const keyTables = {
  top: (buf: Uint8Array, start: number, length: number): TopKey => top.find(buf, start, length),
  arg: (buf: Uint8Array, start: number, length: number): ArgKey => arg.find(buf, start, length),
};
