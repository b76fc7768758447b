/** A parsed Chrome trace event. */
export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A pid or tid as a map key; the number 7 and the string "7" stay apart. */
export function idKey(value: unknown): string {
  if (typeof value === 'number') {
    return String(value);
  }
  return typeof value === 'string' ? `"${value}` : '?';
}

/** A safe integer from a number or a numeric string, else `fallback`. */
export function intOr(value: unknown, fallback: number): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : fallback;
}

/**
 * Process and thread names from `ph: "M"` events (`process_name`, `process_labels`,
 * `thread_name`), by pid and tid key. Writers put them anywhere in the file, so they are read
 * once every event is in.
 */
export class ChromeMetadata {
  private readonly processNames = new Map<string, string>();
  private readonly processLabels = new Map<string, string>();
  private readonly threadNames = new Map<string, string>();

  add(e: Json): void {
    const args = isObject(e['args']) ? e['args'] : {};
    const pid = idKey(e['pid']);
    if (e['name'] === 'process_name' && typeof args['name'] === 'string') {
      this.processNames.set(pid, args['name']);
    } else if (e['name'] === 'process_labels' && typeof args['labels'] === 'string') {
      this.processLabels.set(pid, args['labels']);
    } else if (e['name'] === 'thread_name' && typeof args['name'] === 'string') {
      this.threadNames.set(`${pid}\u0000${idKey(e['tid'])}`, args['name']);
    }
  }

  processName(pidKey: string): string | undefined {
    return this.processNames.get(pidKey);
  }

  processLabel(pidKey: string): string | undefined {
    return this.processLabels.get(pidKey);
  }

  threadName(pidKey: string, tidKey: string): string | undefined {
    return this.threadNames.get(`${pidKey}\u0000${tidKey}`);
  }
}

// "Device 0", "GPU 1", "cuda:2", "CUDA device 3" name a GPU; "stream 7", "CUDA stream 13",
// "Stream #14" a stream. A number must follow: "GPU worker" names no device.
const devicePattern = /\b(?:gpu|device)\s*[:#]?\s*(\d+)\b|\bcuda:(\d+)\b/i;
const streamPattern = /\bstream\s*[:#]?\s*(-?\d+)\b/i;

/** The GPU that a process name or label names, if any. */
export function deviceNamedBy(text: string | undefined): number | undefined {
  const match = text === undefined ? null : devicePattern.exec(text);
  return match === null ? undefined : Number(match[1] ?? match[2]);
}

/** The stream that a thread name names, if any. */
export function streamNamedBy(text: string | undefined): number | undefined {
  const match = text === undefined ? null : streamPattern.exec(text);
  return match === null ? undefined : Number(match[1]);
}

/** The number a name ends with ("CUDA API 7" → 7), if any. */
export function trailingNumber(text: string): number | undefined {
  const match = /(\d+)\s*$/.exec(text);
  return match === null ? undefined : Number(match[1]);
}
