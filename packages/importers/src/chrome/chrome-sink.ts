import type { LaunchTable } from '@streamscope/trace';
import { ImportError } from '../import-error.ts';
import type { TraceBuilder } from '../trace-builder.ts';
import type { ChromeEvent } from './chrome-event.ts';
import { ChromeMetadata, isObject } from './chrome-metadata.ts';
import { EventTimes } from './event-times.ts';
import type { GenericPlaced } from './generic-events.ts';
import { GenericEvents } from './generic-events.ts';
import { KinetoEvents, kinetoCategory } from './kineto-events.ts';
import { KinetoJob } from './kineto-job.ts';

/** Top-level keys that only the PyTorch profiler writes. */
export const kinetoTopKeys = [
  'schemaVersion',
  'deviceProperties',
  'distributedInfo',
  'traceName',
  'baseTimeNanoseconds',
];

/** Distinct categories counted for messages; more are summed as "others". */
const maxCategoriesNamed = 16;

/**
 * Routes the events of a Chrome trace: kineto categories (kernel, gpu_memcpy, cuda_runtime,
 * cpu_op, …) to the kineto mapping, every other complete or begin/end event to the generic one
 * (a track per pid and tid), unless the file is a kineto trace, whose other categories
 * (python_function, gpu_user_annotation, …) are not read. Times are read exactly from each
 * event's JSON text (EventTimes). `finish` says what was kept, and fails an import that keeps
 * nothing, naming why.
 */
export class ChromeEventSink {
  private readonly times: EventTimes;
  private readonly meta = new ChromeMetadata();
  private readonly kineto: KinetoEvents;
  private readonly job: KinetoJob;
  private readonly generic = new GenericEvents();
  private readonly names = new Map<string, number>();
  private readonly skippedCategories = new Map<string, number>();
  private kinetoFile = false;
  private events = 0;
  private timedEvents = 0;
  private schemaVersion: number | undefined;
  private lastCat = '';
  private lastCatBits = 0;
  /** The event being read, for messages: `${where}[${index}]`. */
  private where = '';
  private index = 0;
  private readonly pathOf = (): string => `${this.where}[${this.index}]`;

  constructor(
    private readonly builder: TraceBuilder,
    launches: LaunchTable,
    private readonly file: string,
  ) {
    this.times = new EventTimes(file, (path) =>
      builder.warnings.add('events with a negative duration drawn as instants', path),
    );
    this.kineto = new KinetoEvents(builder, launches, this.name);
    this.job = new KinetoJob(builder);
  }

  event(e: ChromeEvent, index: number, where: string): void {
    this.events++;
    const ph = e.ph;
    if (ph === 'M') {
      // The scanner leaves metadata events to JSON.parse, so they always come parsed.
      if (e.parsed !== undefined) {
        this.meta.add(e.parsed);
      }
      return;
    }
    if (ph !== 'X' && ph !== 'B' && ph !== 'E') {
      return; // flows (we join by correlation id instead), instants, counters, async events
    }
    this.index = index;
    this.where = where;
    this.timedEvents++;
    const cat = e.cat ?? '';
    // Categories come interned and in runs: the last one's bits are kept.
    if (cat !== this.lastCat) {
      this.lastCat = cat;
      this.lastCatBits = kinetoCategory(cat);
    }
    const bits = this.lastCatBits;
    if (ph === 'X' && bits !== 0) {
      this.kinetoFile = true;
      this.times.read(e, this.pathOf);
      this.kineto.event(e, cat, bits, this.times);
    } else if (this.kinetoFile) {
      this.skip(cat);
    } else {
      this.times.read(e, this.pathOf);
      this.generic.add(e, ph, this.times, this.name);
    }
  }

  topValue(key: string, value: unknown, bytes: Uint8Array): void {
    this.kinetoFile = true;
    this.job.topValue(key, value, bytes);
    if (key === 'schemaVersion' && typeof value === 'number') {
      this.schemaVersion = value;
    } else if (key === 'deviceProperties') {
      this.addDevices(value);
    }
  }

  /** Places what was staged and returns the producer; throws when nothing could be kept. */
  finish(): string {
    let placed: GenericPlaced = { gpuOps: 0, hostRanges: 0, hostTracks: 0 };
    if (this.kinetoFile) {
      // Events of other categories seen before the file showed it is a kineto trace.
      this.skippedCategories.set('(before the first kineto event)', this.generic.count);
    } else {
      placed = this.generic.emit(this.builder, this.meta);
    }
    this.kineto.finish(this.meta);
    this.builder.offsetOrigin(this.times.originNs());
    this.job.finish(this.kinetoFile, this.times.originNs());
    if (this.generic.sawLegacy) {
      this.builder.warnings.add(
        "legacy autograd-profiler events carry no streams: each GPU's kernels are drawn on one row",
      );
    }
    if (this.builder.opCount === 0 && this.builder.rangeCount === 0) {
      throw new ImportError({ file: this.file }, this.nothingKept());
    }
    if (this.kineto.gpuOps + placed.gpuOps === 0) {
      this.builder.warnings.add(
        this.kinetoFile
          ? 'no GPU operation in this kineto trace (no kernel, gpu_memcpy, gpu_memset or cuda_sync events): only host activity'
          : `no GPU operation in this trace: its events are on ${placed.hostTracks} host threads; no process or thread is named like a GPU or a stream ("GPU 0", "Device 0", "stream 7")`,
      );
    }
    if (this.kinetoFile) {
      const version = this.schemaVersion === undefined ? '' : ` schema ${this.schemaVersion}`;
      return this.kineto.sawOld ? `kineto (2021 format)${version}` : `kineto${version}`;
    }
    return this.generic.sawLegacy ? 'PyTorch autograd profiler (legacy)' : 'Chrome trace events';
  }

  private readonly name = (value: string): number => {
    let id = this.names.get(value);
    if (id === undefined) {
      id = this.builder.name(value);
      this.names.set(value, id);
    }
    return id;
  };

  private skip(cat: string): void {
    const key = cat === '' ? '(no category)' : cat;
    const n = this.skippedCategories.get(key);
    if (n !== undefined || this.skippedCategories.size < maxCategoriesNamed) {
      this.skippedCategories.set(key, (n ?? 0) + 1);
    } else {
      this.skippedCategories.set('others', (this.skippedCategories.get('others') ?? 0) + 1);
    }
  }

  private nothingKept(): string {
    if (this.events === 0) {
      return 'the trace has no events';
    }
    if (this.timedEvents === 0) {
      return `no complete (X) or begin/end (B/E) events in ${this.events} events of the file`;
    }
    const reasons: string[] = [];
    const skipped = [...this.skippedCategories].filter(([, n]) => n > 0);
    if (skipped.length > 0) {
      const list = skipped.map(([cat, n]) => `${cat} ×${n}`).join(', ');
      reasons.push(`this is a kineto trace, and it reads no events of these categories: ${list}`);
    }
    if (this.generic.unmatchedEnds > 0) {
      reasons.push(`${this.generic.unmatchedEnds} end (E) events have no begin (B)`);
    }
    return `none of the ${this.timedEvents} complete or begin/end events in ${this.events} events of the file could be kept: ${reasons.join('; ')}`;
  }

  private addDevices(value: unknown): void {
    if (!Array.isArray(value)) {
      return;
    }
    for (const device of value) {
      if (!isObject(device) || typeof device['id'] !== 'number') {
        continue;
      }
      const num = (k: string): number | undefined =>
        typeof device[k] === 'number' ? device[k] : undefined;
      const sm = num('numSms');
      const memory = num('totalGlobalMem');
      const major = num('computeMajor');
      this.builder.addDevice({
        deviceId: device['id'],
        name: typeof device['name'] === 'string' ? device['name'] : `GPU ${device['id']}`,
        ...(sm === undefined ? {} : { smCount: sm }),
        ...(memory === undefined ? {} : { memoryBytes: memory }),
        ...(major === undefined
          ? {}
          : { computeCapability: `${major}.${num('computeMinor') ?? 0}` }),
      });
    }
  }
}
