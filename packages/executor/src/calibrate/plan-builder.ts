import type { BufferKind, Plan, PlanOp, PlanStreamType } from '@streamscope/workload';

type OpWithoutIds = PlanOp extends infer O
  ? O extends PlanOp
    ? Omit<O, 'opId' | 'src'>
    : never
  : never;

/**
 * Builds small plans directly, for measurements that need exact control (calibration,
 * benchmarks). One device and one host thread; stream 0 is the legacy default stream.
 */
export class PlanBuilder {
  private readonly buffers: Plan['buffers'][number][] = [];
  private readonly streams: Plan['streams'][number][] = [];
  private readonly events: Plan['events'][number][] = [];
  private readonly ops: PlanOp[] = [];
  private declaredNs = 0;

  constructor(
    private readonly name: string,
    private readonly deviceName = 'device 0',
  ) {
    this.streams.push({
      id: 0,
      name: 'legacy default',
      device: 0,
      type: 'legacy-default',
      priority: 0,
      thread: null,
    });
  }

  buffer(name: string, kind: BufferKind, bytes: number): number {
    this.buffers.push({
      id: this.buffers.length,
      name,
      kind,
      bytes,
      device: 0,
      allocation: 'setup',
    });
    return this.buffers.length - 1;
  }

  stream(name: string, type: PlanStreamType = 'non-blocking', priority = 0): number {
    this.streams.push({
      id: this.streams.length,
      name,
      device: 0,
      type,
      priority,
      thread: type === 'per-thread-default' ? 0 : null,
    });
    return this.streams.length - 1;
  }

  event(name: string): number {
    this.events.push({ id: this.events.length, name, recordedBy: 0 });
    return this.events.length - 1;
  }

  op(op: OpWithoutIds): this {
    this.ops.push({ ...op, opId: this.ops.length, src: `$.ops[${this.ops.length}]` });
    if ('durNs' in op) {
      this.declaredNs += op.durNs;
    }
    return this;
  }

  kernel(stream: number, name: string, durNs: number, grid = 1, block = 32): this {
    return this.op({
      kind: 'kernel',
      stream,
      name,
      mode: 'timed',
      durNs,
      iterations: 0,
      grid: [grid, 1, 1],
      block: [block, 1, 1],
      sharedMemBytes: 0,
    });
  }

  workKernel(stream: number, name: string, iterations: number, grid = 1, block = 32): this {
    return this.op({
      kind: 'kernel',
      stream,
      name,
      mode: 'work',
      durNs: 0,
      iterations,
      grid: [grid, 1, 1],
      block: [block, 1, 1],
      sharedMemBytes: 0,
    });
  }

  copy(stream: number, dst: number, src: number, bytes: number, async = true): this {
    const host = (b: number): boolean => this.buffers[b]!.kind.startsWith('host');
    const direction = host(src) ? (host(dst) ? 'htoh' : 'htod') : host(dst) ? 'dtoh' : 'dtod';
    return this.op({
      kind: 'copy',
      stream,
      direction,
      srcBuffer: src,
      srcOffset: 0,
      dstBuffer: dst,
      dstOffset: 0,
      bytes,
      async,
    });
  }

  sync(stream: number): this {
    return this.op({ kind: 'streamSync', stream });
  }

  hostWork(name: string, durNs: number): this {
    return this.op({ kind: 'hostWork', name, durNs });
  }

  build(): Plan {
    return {
      version: 1,
      name: this.name,
      devices: [{ id: 0, name: this.deviceName, memoryBytes: 0 }],
      buffers: this.buffers,
      streams: this.streams,
      events: this.events,
      groups: [],
      graphs: [],
      threads: [{ id: 0, name: 'main', device: 0, ops: this.ops }],
      opCount: this.ops.length,
      executedOpCount: this.ops.length,
      declaredDurationNs: this.declaredNs,
    };
  }
}
