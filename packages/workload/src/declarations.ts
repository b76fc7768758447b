import type { Scope } from './expr.ts';
import type { IssueList } from './issues.ts';
import type { WorkloadLimits } from './limits.ts';
import type { PlanBuffer, PlanDevice, PlanEvent, PlanStream } from './plan.ts';
import type { Workload } from './schema.ts';
import type { Values } from './values.ts';
import { at } from './values.ts';

/** A declared name: one item, or an array `name[0..count-1]` of consecutive ids. */
interface Declared {
  readonly first: number;
  readonly count: number;
  readonly isArray: boolean;
}

type MutableBuffer = { -readonly [K in keyof PlanBuffer]: PlanBuffer[K] };
type MutableEvent = { -readonly [K in keyof PlanEvent]: PlanEvent[K] };

const emptyScope: Scope = new Map();
const refPattern = /^([A-Za-z_][A-Za-z0-9_.-]*)(?:\[(.+)\])?$/;

// Loops resolve the same reference texts over and over: split each text once.
const parsedRefs = new Map<string, readonly [string, string | undefined] | null>();

function parseRef(ref: string): readonly [string, string | undefined] | null {
  let parsed = parsedRefs.get(ref);
  if (parsed === undefined) {
    const match = refPattern.exec(ref);
    parsed = match === null ? null : [match[1]!, match[2]];
    if (parsedRefs.size >= 10_000) {
      parsedRefs.clear();
    }
    parsedRefs.set(ref, parsed);
  }
  return parsed;
}

/** Devices, buffers, streams and events of a spec, numbered, with name resolution. */
export class Declarations {
  readonly devices: PlanDevice[] = [];
  readonly buffers: MutableBuffer[] = [];
  readonly streams: PlanStream[] = [];
  readonly events: MutableEvent[] = [];
  /** JSON path of each buffer's declaration, by buffer id. */
  readonly bufferPaths: string[] = [];
  private readonly deviceIds = new Map<string, number>();
  private readonly bufferNames = new Map<string, Declared>();
  private readonly streamNames = new Map<string, Declared>();
  private readonly eventNames = new Map<string, Declared>();
  private readonly perThreadStreams = new Map<number, number>();

  constructor(
    private readonly issues: IssueList,
    private readonly values: Values,
    private readonly limits: WorkloadLimits,
    workload: Workload,
    opAllocated: ReadonlySet<string>,
  ) {
    this.declareDevices(workload);
    this.declareBuffers(workload, opAllocated);
    this.declareStreams(workload);
    this.declareEvents(workload);
  }

  private declareDevices(workload: Workload): void {
    workload.devices.forEach((d, i) => {
      const path = `$.devices[${i}]`;
      if (this.deviceIds.has(d.name)) {
        this.issues.add(`${path}.name`, `device "${d.name}" is declared twice`);
        return;
      }
      if (i >= this.limits.maxDevices) {
        this.issues.add(path, `more than ${this.limits.maxDevices} devices (limit maxDevices)`);
        return;
      }
      let memoryBytes = this.limits.deviceMemoryBytes;
      if (d.memory !== undefined) {
        const declared = this.values.size(
          d.memory,
          emptyScope,
          `${path}.memory`,
          1,
          this.limits.deviceMemoryBytes,
        );
        memoryBytes = declared ?? memoryBytes;
      }
      this.deviceIds.set(d.name, this.devices.length);
      this.devices.push({ id: this.devices.length, name: d.name, memoryBytes });
      // Every device's legacy default stream has the device's id.
      this.streams.push({
        id: this.streams.length,
        name: this.devices.length === 1 ? 'legacy' : `legacy@${d.name}`,
        device: this.devices.length - 1,
        type: 'legacy-default',
        priority: 0,
        thread: null,
      });
    });
    if (this.devices.length === 0) {
      this.issues.add('$.devices', 'a workload needs at least one device');
    }
  }

  /** Device id by name, or 0 (the first device) when `name` is absent. */
  device(name: string | undefined, path: string): number {
    if (name === undefined) {
      return 0;
    }
    const id = this.deviceIds.get(name);
    if (id === undefined) {
      this.issues.add(
        path,
        `unknown device "${name}" (declared: ${[...this.deviceIds.keys()].join(', ')})`,
      );
      return 0;
    }
    return id;
  }

  private arrayCount(
    count: number | string | undefined,
    path: string,
    max: number,
  ): number | undefined {
    return count === undefined ? 1 : this.values.count(count, emptyScope, path, 1, max);
  }

  private declareBuffers(workload: Workload, opAllocated: ReadonlySet<string>): void {
    const deviceBytes = new Map<number, number>();
    let hostBytes = 0;
    workload.buffers.forEach((b, i) => {
      const path = `$.buffers[${i}]`;
      const n = this.arrayCount(b.count, `${path}.count`, this.limits.maxBuffers);
      const device = this.device(b.device, `${path}.device`);
      const maxBytes = b.kind.startsWith('host')
        ? this.limits.hostMemoryBytes
        : this.limits.deviceMemoryBytes;
      const bytes = this.values.size(b.size, emptyScope, `${path}.size`, 1, maxBytes);
      if (
        n === undefined ||
        bytes === undefined ||
        !this.claim(this.bufferNames, b.name, n, b.count !== undefined, path, this.buffers.length)
      ) {
        return;
      }
      if (this.buffers.length + n > this.limits.maxBuffers) {
        this.issues.add(path, `more than ${this.limits.maxBuffers} buffers (limit maxBuffers)`);
        return;
      }
      for (let k = 0; k < n; k++) {
        this.bufferPaths.push(path);
        this.buffers.push({
          id: this.buffers.length,
          name: b.count === undefined ? b.name : `${b.name}[${k}]`,
          kind: b.kind,
          bytes,
          device,
          allocation: opAllocated.has(b.name) ? 'op' : 'setup',
        });
      }
      const total = bytes * n;
      if (b.kind === 'device' || b.kind === 'stream-ordered') {
        const held = (deviceBytes.get(device) ?? 0) + total;
        deviceBytes.set(device, held);
        const capacity = this.devices[device]?.memoryBytes ?? this.limits.deviceMemoryBytes;
        if (held > capacity) {
          this.issues.add(
            `${path}.size`,
            `device "${this.devices[device]?.name ?? device}" would hold ${held} bytes of buffers, more than its ${capacity}`,
          );
        }
      } else {
        hostBytes += total;
        if (hostBytes > this.limits.hostMemoryBytes) {
          this.issues.add(
            `${path}.size`,
            `host buffers would take ${hostBytes} bytes, more than the limit ${this.limits.hostMemoryBytes}`,
          );
        }
      }
    });
  }

  private declareStreams(workload: Workload): void {
    workload.streams.forEach((s, i) => {
      const path = `$.streams[${i}]`;
      if (s.name === 'legacy' || s.name === 'per-thread') {
        this.issues.add(`${path}.name`, `"${s.name}" is a built-in stream name`);
        return;
      }
      const n = this.arrayCount(s.count, `${path}.count`, this.limits.maxStreams);
      const device = this.device(s.device, `${path}.device`);
      if (
        n === undefined ||
        !this.claim(this.streamNames, s.name, n, s.count !== undefined, path, this.streams.length)
      ) {
        return;
      }
      if (this.streams.length + n > this.limits.maxStreams) {
        this.issues.add(path, `more than ${this.limits.maxStreams} streams (limit maxStreams)`);
        return;
      }
      for (let k = 0; k < n; k++) {
        this.streams.push({
          id: this.streams.length,
          name: s.count === undefined ? s.name : `${s.name}[${k}]`,
          device,
          type: s.type,
          priority: s.priority,
          thread: null,
        });
      }
    });
  }

  private declareEvents(workload: Workload): void {
    workload.events.forEach((e, i) => {
      const path = `$.events[${i}]`;
      const n = this.arrayCount(e.count, `${path}.count`, this.limits.maxEvents);
      if (
        n === undefined ||
        !this.claim(this.eventNames, e.name, n, e.count !== undefined, path, this.events.length)
      ) {
        return;
      }
      if (this.events.length + n > this.limits.maxEvents) {
        this.issues.add(path, `more than ${this.limits.maxEvents} events (limit maxEvents)`);
        return;
      }
      for (let k = 0; k < n; k++) {
        this.events.push({
          id: this.events.length,
          name: e.count === undefined ? e.name : `${e.name}[${k}]`,
          recordedBy: -1,
        });
      }
    });
  }

  private claim(
    table: Map<string, Declared>,
    name: string,
    count: number,
    isArray: boolean,
    path: string,
    first: number,
  ): boolean {
    if (table.has(name)) {
      this.issues.add(`${path}.name`, `"${name}" is declared twice`);
      return false;
    }
    table.set(name, { first, count, isArray });
    return true;
  }

  buffer(ref: string, scope: Scope, path: string): number | undefined {
    return this.resolve(this.bufferNames, ref, scope, path, 'buffer');
  }

  event(ref: string, scope: Scope, path: string): number | undefined {
    return this.resolve(this.eventNames, ref, scope, path, 'event');
  }

  /** A stream reference: "legacy", "per-thread", a name or `name[expr]`. */
  stream(
    ref: string | undefined,
    scope: Scope,
    path: string,
    thread: number,
    threadName: string,
    device: number,
  ): number | undefined {
    if (ref === undefined || ref === 'legacy') {
      return device;
    }
    if (ref === 'per-thread') {
      return this.perThreadStream(thread, threadName, device);
    }
    return this.resolve(this.streamNames, ref, scope, path, 'stream');
  }

  private perThreadStream(thread: number, threadName: string, device: number): number {
    const existing = this.perThreadStreams.get(thread);
    if (existing !== undefined) {
      return existing;
    }
    const id = this.streams.length;
    this.streams.push({
      id,
      name: `per-thread(${threadName})`,
      device,
      type: 'per-thread-default',
      priority: 0,
      thread,
    });
    this.perThreadStreams.set(thread, id);
    return id;
  }

  private resolve(
    table: ReadonlyMap<string, Declared>,
    ref: string,
    scope: Scope,
    path: string,
    what: string,
  ): number | undefined {
    const match = parseRef(ref);
    if (match === null) {
      this.issues.add(path, `"${ref}" is not a ${what} reference (a name, or name[index])`);
      return undefined;
    }
    const base = match[0];
    const declared = table.get(base);
    if (declared === undefined) {
      const known = [...table.keys()];
      const builtins = what === 'stream' ? ['legacy', 'per-thread'] : [];
      this.issues.add(
        path,
        `unknown ${what} "${base}" (declared: ${[...builtins, ...known].join(', ') || 'none'})`,
      );
      return undefined;
    }
    const indexText = match[1];
    if (indexText === undefined) {
      if (declared.isArray) {
        this.issues.add(
          path,
          `"${base}" is an array of ${declared.count} ${what}s: write ${base}[index]`,
        );
        return undefined;
      }
      return declared.first;
    }
    if (!declared.isArray) {
      this.issues.add(path, `"${base}" is a single ${what}, not an array`);
      return undefined;
    }
    const index = this.values.count(indexText, scope, path, -Infinity, Infinity);
    if (index === undefined) {
      return undefined;
    }
    if (index < 0 || index >= declared.count) {
      this.issues.add(
        path,
        `${base}[${index}] is out of range: "${base}" has ${declared.count} ${what}s${at(scope)}`,
      );
      return undefined;
    }
    return declared.first + index;
  }
}

/** The base name of a reference (`"tmp[i]"` → `"tmp"`), or undefined when it is malformed. */
export function refBase(ref: string): string | undefined {
  return parseRef(ref)?.[0];
}
