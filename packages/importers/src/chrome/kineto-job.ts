import type { DistributedInfo } from '@streamscope/trace';
import type { TraceBuilder } from '../trace-builder.ts';
import { isObject } from './chrome-metadata.ts';

// Kineto without baseTimeNanoseconds writes ts in µs since 1970; a first time at or after
// 1e15 µs (2001-09-09) is taken as such. Earlier values are a clock of unknown zero.
const epochFloorNs = 10n ** 18n;

/**
 * What a kineto trace says about its job: its rank (`distributedInfo`) and its wall clock
 * (`baseTimeNanoseconds`, read from the JSON text: a double holds 1.79e18 ns only to 256 ns).
 * Traces of several ranks line up on the clock; a value that cannot be read is a warning.
 */
export class KinetoJob {
  private distributed: DistributedInfo | undefined;
  private baseNs: string | undefined;

  constructor(private readonly builder: TraceBuilder) {}

  topValue(key: string, value: unknown, bytes: Uint8Array): void {
    if (key === 'distributedInfo') {
      this.readDistributed(value);
    } else if (key === 'baseTimeNanoseconds') {
      const text = new TextDecoder().decode(bytes).trim();
      const digits = /^"?(\d{1,19})"?$/.exec(text);
      if (digits === null) {
        this.builder.warnings.add(
          `baseTimeNanoseconds must be an integer of ns since 1970, got ${text.slice(0, 40)}: the trace has no wall clock`,
          'baseTimeNanoseconds',
        );
      } else {
        this.baseNs = BigInt(digits[1]!).toString();
      }
    }
  }

  /** Keeps what was read; `sourceOriginNs` is the first time read, in ns since the ts zero. */
  finish(kinetoFile: boolean, sourceOriginNs: bigint): void {
    if (this.distributed !== undefined) {
      this.builder.addMeta({ distributed: this.distributed });
    }
    if (this.baseNs !== undefined) {
      this.builder.addMeta({ clockEpochNs: this.baseNs });
    } else if (kinetoFile && sourceOriginNs >= epochFloorNs) {
      this.builder.addMeta({ clockEpochNs: '0' });
    }
  }

  private readDistributed(value: unknown): void {
    if (!isObject(value)) {
      return;
    }
    const rank = value['rank'];
    const worldSize = value['world_size'];
    const missing = [rank === undefined ? 'rank' : '', worldSize === undefined ? 'world_size' : '']
      .filter((key) => key !== '')
      .join(' or ');
    if (missing !== '') {
      this.builder.warnings.add(
        `distributedInfo has no ${missing}: the rank is not kept`,
        'distributedInfo',
      );
      return;
    }
    if (
      typeof rank !== 'number' ||
      typeof worldSize !== 'number' ||
      !Number.isSafeInteger(rank) ||
      !Number.isSafeInteger(worldSize) ||
      rank < 0 ||
      worldSize < 1 ||
      rank >= worldSize ||
      worldSize > 1 << 24
    ) {
      this.builder.warnings.add(
        `distributedInfo needs an integer rank in [0, world_size), got rank ${JSON.stringify(rank)}, world_size ${JSON.stringify(worldSize)}: the rank is not kept`,
        'distributedInfo',
      );
      return;
    }
    const backend = typeof value['backend'] === 'string' ? value['backend'] : '';
    this.distributed = { rank, worldSize, backend };
  }
}
