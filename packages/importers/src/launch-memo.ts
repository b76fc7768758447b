import type { LaunchConfig, LaunchTable } from '@streamscope/trace';

const slots = 1024;
const fields = 8;

/**
 * A direct-mapped cache in front of LaunchTable.intern, which builds a string key per call: a
 * trace repeats a few hundred launch configurations over millions of kernels. A miss (or a slot
 * another configuration took) asks the table, so the ids are the table's own.
 */
export class LaunchMemo {
  private readonly values = new Float64Array(slots * fields);
  private readonly ids = new Int32Array(slots).fill(-1);
  private readonly key = new Float64Array(fields);

  constructor(private readonly launches: LaunchTable) {}

  intern(config: LaunchConfig): number {
    const key = this.key;
    key[0] = config.gridX;
    key[1] = config.gridY;
    key[2] = config.gridZ;
    key[3] = config.blockX;
    key[4] = config.blockY;
    key[5] = config.blockZ;
    key[6] = config.sharedMemBytes;
    key[7] = config.registersPerThread;
    let hash = 0;
    for (let f = 0; f < fields; f++) {
      hash = (Math.imul(hash, 31) + (key[f]! | 0)) | 0;
    }
    const slot = (hash >>> 0) % slots;
    const at = slot * fields;
    const values = this.values;
    if (this.ids[slot]! >= 0) {
      let same = true;
      for (let f = 0; f < fields; f++) {
        if (!Object.is(values[at + f], key[f])) {
          same = false;
          break;
        }
      }
      if (same) {
        return this.ids[slot]!;
      }
    }
    const id = this.launches.intern(config);
    values.set(key, at);
    this.ids[slot] = id;
    return id;
  }
}
