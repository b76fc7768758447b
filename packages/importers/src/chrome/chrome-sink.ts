import type { LaunchTable } from '@streamscope/trace';
import { ImportError } from '../import-error.ts';
import { counted } from '../warnings.ts';
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

/** Event kinds that are not drawn, by their `ph`, as `phaseKind` numbers them. */
const phaseKindNames = [
  ['instant', ' (ph i/I/R)'],
  ['counter', ' (ph C)'],
  ['async', ' (ph n/T/p, or an async begin or end with no id)'],
  ['flow', ' (ph s/t/f)'],
  ['object', ' (ph N/O/D)'],
  ['sample', ' (ph P)'],
  ['', ' of other kinds'],
] as const;

/** "1 flow event", "5 flow events": `n` events of kind `what` ('' for none), then `after`. */
function events(n: number, what: string, after = ''): string {
  return `${counted(n, what === '' ? 'event' : `${what} event`)}${after}`;
}

const flowKind = 3;

function phaseKind(ph: string | undefined): number {
  switch (ph) {
    case 'i':
    case 'I':
    case 'R':
      return 0;
    case 'C':
      return 1;
    case 'b':
    case 'e':
    case 'n':
    case 'S':
    case 'T':
    case 'F':
    case 'p':
      return 2;
    case 's':
    case 't':
    case 'f':
      return flowKind;
    case 'N':
    case 'O':
    case 'D':
      return 4;
    case 'P':
      return 5;
    default:
      return 6;
  }
}

/**
 * Kineto categories not drawn and not worth a warning: the profiler's own span and overhead,
 * and the user annotations it copies onto GPU rows (drawn on their host threads).
 */
const kinetoBookkeeping = new Set(['Trace', 'overhead', 'gpu_user_annotation']);

/** The key of the events read before the file showed it is a kineto trace. */
const beforeKineto = '(before the first kineto event)';

/** Distinct categories counted for messages; more are summed as "others". */
const maxCategoriesNamed = 16;

/**
 * Routes the events of a Chrome trace: kineto categories (kernel, gpu_memcpy, cuda_runtime,
 * cpu_op, python_function, …) to the kineto mapping, every other complete or begin/end event to
 * the generic one (a track per pid and tid), unless the file is a kineto trace, whose other
 * categories (gpu_user_annotation, overhead, …) are not read. Times are read exactly from each
 * event's JSON text (EventTimes). `finish` says what was kept and, in one warning, what was not
 * drawn (by category, or by kind where an event kind is not drawn at all), and fails an import
 * that keeps nothing, naming why.
 */
export class ChromeEventSink {
  private readonly times: EventTimes;
  private readonly meta = new ChromeMetadata();
  private readonly kineto: KinetoEvents;
  private readonly job: KinetoJob;
  private readonly generic: GenericEvents;
  private readonly names = new Map<string, number>();
  private readonly skippedCategories = new Map<string, number>();
  /** Kineto's [memory] instants: the caching allocator's allocations and frees. */
  private memoryEvents = 0;
  /** Events of kinds never drawn, by `phaseKind`. */
  private readonly notDrawnKinds = new Array<number>(phaseKindNames.length).fill(0);
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
    this.generic = new GenericEvents(launches);
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
    this.index = index;
    this.where = where;
    if (ph !== 'X' && ph !== 'B' && ph !== 'E') {
      this.untimed(e, ph);
      return;
    }
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

  /**
   * An event that is neither complete nor begin/end. A generic trace's flows and async events go
   * to GenericEvents, which pairs them; the rest, and those it cannot pair (no id), are counted
   * for the not-drawn warning. A kineto trace's flows say what its correlation ids say (ac2g;
   * "async" in 2021), and those are joined, or link a forward op to its backward op (fwdbwd); its
   * uncategorized instants mark the profiler's own window: those go unsaid.
   */
  private untimed(e: ChromeEvent, ph: string | undefined): void {
    if (ph === undefined && e.name === undefined && e.pid === undefined) {
      return; // `{}`: the terminator some writers put last (JAX) or first (RPD), not an event
    }
    const kind = phaseKind(ph);
    const async = ph === 'b' || ph === 'e' || ph === 'S' || ph === 'F';
    if (!this.kinetoFile && e.tsAt >= 0 && (kind === flowKind || async)) {
      this.times.read(e, this.pathOf);
      const kept = async
        ? this.generic.asyncEvent(e, ph, this.times, this.name)
        : this.generic.flow(e, ph!, this.times);
      if (kept) {
        return;
      }
    }
    if (this.kinetoFile && e.cat === 'cpu_instant_event' && e.name === '[memory]') {
      this.memoryEvents++;
    } else if (!(this.kinetoFile && (kind === flowKind || e.cat === undefined))) {
      this.notDrawnKinds[kind] = this.notDrawnKinds[kind]! + 1;
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
    let placed: GenericPlaced = { gpuOps: 0, hostTracks: 0, flowsNotDrawn: 0 };
    if (this.kinetoFile) {
      // Events of other categories seen before the file showed it is a kineto trace.
      this.skippedCategories.set(beforeKineto, this.generic.count);
    } else {
      placed = this.generic.emit(this.builder, this.meta);
      this.notDrawnKinds[flowKind] = this.notDrawnKinds[flowKind]! + placed.flowsNotDrawn;
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
          : `no GPU operation in this trace: its events are on ${counted(placed.hostTracks, 'host thread')}; no process or thread is named like a GPU or a stream ("GPU 0", "Device 0", "stream 7")`,
      );
    }
    const notDrawn = this.notDrawn();
    if (notDrawn !== '') {
      this.builder.warnings.add(`not drawn: ${notDrawn}`);
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

  /** What the file holds that the trace does not show: event kinds, then skipped categories. */
  private notDrawn(): string {
    const parts: string[] = [];
    if (this.memoryEvents > 0) {
      parts.push(
        `${counted(this.memoryEvents, 'allocator event')} of profile_memory ([memory] instants)`,
      );
    }
    this.notDrawnKinds.forEach((n, kind) => {
      if (n > 0) {
        const [what, after] = phaseKindNames[kind]!;
        parts.push(events(n, what, after));
      }
    });
    for (const [cat, n] of this.skippedCategories) {
      if (n > 0 && !kinetoBookkeeping.has(cat)) {
        parts.push(cat === beforeKineto ? events(n, '', ` ${cat.slice(1, -1)}`) : events(n, cat));
      }
    }
    return parts.join(', ');
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
      reasons.push(
        `${counted(this.generic.unmatchedEnds, 'end (E) event')} with no open begin (B) to end`,
      );
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
