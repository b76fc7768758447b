import type { TraceMeta } from './meta.ts';
import { defaultMeta } from './meta.ts';
import type { OpInput } from './op-table.ts';
import { OpTable, maxTracks } from './op-table.ts';
import { FlowTable, LaunchTable, RangeTable } from './side-tables.ts';
import { StringTable } from './strings.ts';
import type { DeviceInfo, ProcessInfo, TrackInfo } from './tracks.ts';

/**
 * Everything known about one run or import. Everything downstream reads only this. A live run
 * is a trace that grows: tables only append, so a reader's snapshot stays a consistent prefix.
 */
export class Trace {
  meta: TraceMeta;
  readonly strings = new StringTable();
  readonly devices: DeviceInfo[] = [];
  readonly processes: ProcessInfo[] = [];
  readonly tracks: TrackInfo[] = [];
  readonly ops = new OpTable();
  readonly flows = new FlowTable();
  readonly ranges = new RangeTable();
  readonly launches = new LaunchTable();
  /** Bumped on every change, so views can tell they are stale without diffing. */
  version = 0;

  constructor(meta: Partial<TraceMeta> = {}) {
    this.meta = defaultMeta(meta);
  }

  addDevice(device: DeviceInfo): number {
    this.devices.push(device);
    this.version++;
    return this.devices.length - 1;
  }

  addProcess(process: ProcessInfo): number {
    this.processes.push(process);
    this.version++;
    return this.processes.length - 1;
  }

  addTrack(track: TrackInfo): number {
    if (this.tracks.length >= maxTracks) {
      throw new RangeError(`a trace holds at most ${maxTracks} tracks`);
    }
    this.tracks.push(track);
    this.version++;
    return this.tracks.length - 1;
  }

  /** Appends one op after checking that its track and name exist. */
  addOp(op: OpInput): number {
    if (op.track >= this.tracks.length) {
      throw new RangeError(
        `op refers to track ${op.track} but the trace has ${this.tracks.length}`,
      );
    }
    this.version++;
    return this.ops.append(op);
  }

  /** Time span covered by ops and ranges, in ns since the origin. */
  spanNs(): number {
    const ranges = this.ranges.columns();
    let end = this.ops.maxEndNs;
    for (let i = 0; i < ranges.count; i++) {
      end = Math.max(end, ranges.endNs[i]!);
    }
    return end;
  }

  name(nameId: number): string {
    return this.strings.get(nameId);
  }
}
