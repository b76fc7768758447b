import type { Trace } from '@streamscope/trace';

// Tests only: a fingerprint of everything a simulated trace holds, so a change to how the
// simulator computes a trace can be checked op by op against what it produced before.

type Column = Float64Array | Uint32Array | Uint16Array | Uint8Array;

/** Two 32-bit FNV-1a hashes with different offsets, kept running over bytes and text. */
class Fingerprint {
  private a = 0x811c9dc5;
  private b = 0x01000193;

  bytes(column: Column): void {
    const view = new Uint8Array(column.buffer, column.byteOffset, column.byteLength);
    let a = this.a;
    let b = this.b;
    for (let i = 0; i < view.length; i++) {
      a = Math.imul(a ^ view[i]!, 0x01000193);
      b = Math.imul(b ^ view[i]!, 0x0100019b);
    }
    this.a = a;
    this.b = b;
  }

  text(value: string): void {
    const codes = new Uint16Array(value.length + 1);
    for (let i = 0; i < value.length; i++) {
      codes[i] = value.charCodeAt(i);
    }
    // A terminator so ["ab", "c"] and ["a", "bc"] differ.
    codes[value.length] = 0xffff;
    this.bytes(codes);
  }

  number(value: number): void {
    this.bytes(new Float64Array([value]));
  }

  hex(): string {
    return (
      (this.a >>> 0).toString(16).padStart(8, '0') + (this.b >>> 0).toString(16).padStart(8, '0')
    );
  }
}

/** One digest of many digests (or any texts), in order. */
export function listDigest(values: readonly string[]): string {
  const f = new Fingerprint();
  f.number(values.length);
  for (const value of values) {
    f.text(value);
  }
  return f.hex();
}

/** Ops, flows, ranges, strings, tracks, devices, launches and warnings of `trace`, as 16 hex digits. */
export function traceDigest(trace: Trace): string {
  const f = new Fingerprint();
  const ops = trace.ops.columns();
  f.number(ops.count);
  for (const column of [
    ops.startNs,
    ops.endNs,
    ops.bytes,
    ops.track,
    ops.nameId,
    ops.correlationId,
    ops.refId,
    ops.kind,
    ops.memKinds,
    ops.flags,
  ]) {
    f.bytes(column);
  }
  const flows = trace.flows.columns();
  f.number(flows.count);
  f.bytes(flows.fromOp);
  f.bytes(flows.toOp);
  f.bytes(flows.kind);
  const ranges = trace.ranges.columns();
  f.number(ranges.count);
  for (const column of [
    ranges.startNs,
    ranges.endNs,
    ranges.track,
    ranges.nameId,
    ranges.domainId,
    ranges.depth,
    ranges.kind,
  ]) {
    f.bytes(column);
  }
  f.number(trace.strings.count);
  for (let id = 0; id < trace.strings.count; id++) {
    f.text(trace.strings.get(id));
  }
  f.text(JSON.stringify(trace.tracks));
  f.text(JSON.stringify(trace.devices));
  f.text(JSON.stringify(trace.launches.slice(0)));
  f.text(JSON.stringify(trace.meta.warnings ?? []));
  return f.hex();
}
