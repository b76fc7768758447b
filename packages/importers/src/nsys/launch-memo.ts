import type { LaunchTable } from '@streamscope/trace';
import { IdHashMap } from '../id-hash-map.ts';

const twoTo32 = 4294967296;

/**
 * LaunchTable.intern for a stream of kernels without an object and a key string per kernel:
 * a config is found by a hash of its eight integers and checked field by field; only a config
 * not seen before (or a hash collision) goes through intern, so ids are the same as intern's.
 */
export class LaunchMemo {
  private readonly byHash = new IdHashMap();
  private readonly values = new Float64Array(8);

  constructor(private readonly launches: LaunchTable) {}

  /** The launch id of (grid, block, shared memory bytes, registers per thread). */
  id(
    gridX: number,
    gridY: number,
    gridZ: number,
    blockX: number,
    blockY: number,
    blockZ: number,
    sharedMemBytes: number,
    registersPerThread: number,
  ): number {
    const v = this.values;
    v[0] = gridX;
    v[1] = gridY;
    v[2] = gridZ;
    v[3] = blockX;
    v[4] = blockY;
    v[5] = blockZ;
    v[6] = sharedMemBytes;
    v[7] = registersPerThread;
    let h = 0x811c9dc5;
    for (let i = 0; i < 8; i++) {
      const x = v[i]!;
      h = Math.imul(h ^ (x | 0), 0x01000193);
      h = Math.imul(h ^ ((x / twoTo32) | 0), 0x01000193);
    }
    const key = h >>> 0;
    const known = this.byHash.get(key);
    if (known >= 0) {
      const c = this.launches.get(known)!;
      if (
        c.gridX === gridX &&
        c.gridY === gridY &&
        c.gridZ === gridZ &&
        c.blockX === blockX &&
        c.blockY === blockY &&
        c.blockZ === blockZ &&
        c.sharedMemBytes === sharedMemBytes &&
        c.registersPerThread === registersPerThread
      ) {
        return known;
      }
    }
    const id = this.launches.intern({
      gridX,
      gridY,
      gridZ,
      blockX,
      blockY,
      blockZ,
      sharedMemBytes,
      registersPerThread,
    });
    if (known < 0) {
      this.byHash.set(key, id);
    }
    return id;
  }
}
