import { streamTypeFromFlag } from './nsys-enums.ts';
import { executableName } from './process-name.ts';
import type { SqlValue } from './sqlite-rows.ts';
import type { ScanColumn } from './sqlite-source.ts';
import { SqliteRowReader, col, pidCol, tidCol } from './sqlite-rows.ts';

/**
 * The side tables of an nsys SQLite export: thread and process names, stream types and
 * priorities, devices, producer version and capture time. Read after the activity tables, so
 * that only processes with lanes get names. Environment and command-line tables are never read.
 */
export class SqliteTargetInfo extends SqliteRowReader {
  read(): { producer: string; createdAt?: string } {
    this.threadNames();
    this.processNames();
    this.streams();
    this.contexts();
    this.devices();
    return this.meta();
  }

  private threadNames(): void {
    const table = 'ThreadNames';
    if (!this.t.has(table)) {
      return;
    }
    this.t.requireColumns(table, ['nameId', 'globalTid']);
    this.rows(table, ['nameId', tidCol('globalTid')], (v) => {
      const proc = this.proc(v[1], v[2]);
      this.builder.lanes.nameThread(
        proc,
        this.int(v[3], 'globalTid'),
        this.builder.sourceName(this.int(v[0], 'nameId')),
      );
    });
  }

  private processNames(): void {
    const table = 'PROCESSES';
    if (!this.t.has(table)) {
      return;
    }
    this.t.requireColumns(table, ['globalPid', 'name']);
    this.rows(table, [pidCol('globalPid'), 'name'], (v) => {
      const proc = this.builder.lanes.hasProcess(`${String(v[0] ?? 0)}:${String(v[1] ?? 0)}`);
      if (proc !== undefined && typeof v[2] === 'string') {
        this.builder.lanes.nameProcess(proc, executableName(v[2])); // some exports hold the command line
      }
    });
  }

  private streams(): void {
    const table = 'TARGET_INFO_CUDA_STREAM';
    if (!this.t.has(table)) {
      return;
    }
    this.t.requireColumns(table, ['streamId', 'processId', 'contextId']);
    this.rows(
      table,
      ['streamId', 'processId', 'contextId', col('priority', 0), col('flag', 0), col('vmId', 0)],
      (v) => {
        const proc = this.builder.lanes.hasProcess(`${String(v[5] ?? 0)}:${String(v[1] ?? 0)}`);
        if (proc !== undefined) {
          // priority is stored unsigned: 4294967291 is -5
          const priority = this.int(v[3], 'priority') | 0;
          this.builder.lanes.describeStream(
            proc,
            this.int(v[2], 'contextId'),
            this.int(v[0], 'streamId'),
            streamTypeFromFlag(this.int(v[4], 'flag')),
            priority,
          );
        }
      },
    );
  }

  /** Which device each process's context lives on (2025+): places lanes that only sync rows name. */
  private contexts(): void {
    const table = 'TARGET_INFO_CUDA_CONTEXT_INFO';
    if (!this.t.has(table)) {
      return;
    }
    this.t.requireColumns(table, ['processId', 'deviceId', 'contextId']);
    this.rows(table, ['processId', 'deviceId', 'contextId', col('vmId', 0)], (v) => {
      const proc = this.builder.lanes.hasProcess(`${String(v[3] ?? 0)}:${String(v[0] ?? 0)}`);
      if (proc !== undefined) {
        this.builder.lanes.setContextDevice(
          proc,
          this.int(v[2], 'contextId'),
          this.int(v[1], 'deviceId'),
        );
      }
    });
  }

  /**
   * Device names and facts. TARGET_INFO_GPU (2021.2 on) names the device `id`/`cuDevice` with
   * smCount, totalMemory, computeMajor/Minor, asyncEngines, clockRate (Hz), memoryBandwidth (B/s).
   * The older TARGET_INFO_CUDA_GPU follows CUPTI's device record instead: `deviceId` (nsys
   * 2021.1's own gputrace report joins it USING (deviceId)), `name`, numMultiprocessors,
   * globalMemorySize, computeCapabilityMajor/Minor, numMemcpyEngines. Its clock and bandwidth
   * columns are left out: the export documents no unit for them.
   */
  private devices(): void {
    const table = this.t.firstOf('TARGET_INFO_GPU', 'TARGET_INFO_CUDA_GPU');
    if (table === undefined) {
      return;
    }
    const cols = this.t.columns(table);
    const first = (...names: string[]): string | undefined => names.find((n) => cols.has(n));
    const idCol = first('cuDevice', 'id', 'deviceId');
    if (idCol === undefined || !cols.has('name')) {
      this.builder.warnings.add(
        `${table} has no device id column (cuDevice, id or deviceId) or no name column; devices are named by number`,
      );
      return;
    }
    // A column this schema lacks reads as NULL.
    const c = (...names: string[]): ScanColumn => col(first(...names) ?? names[0]!);
    const deviceCols = [
      idCol,
      'name',
      c('smCount', 'numMultiprocessors'),
      c('totalMemory', 'globalMemorySize'),
      c('computeMajor', 'computeCapabilityMajor'),
      c('computeMinor', 'computeCapabilityMinor'),
      c('busLocation'),
      c('asyncEngines', 'numMemcpyEngines'),
      c('clockRate'),
      c('memoryBandwidth'),
    ];
    this.rows(table, deviceCols, (v) => {
      const num = (value: SqlValue | undefined): number | undefined =>
        typeof value === 'number' && value > 0 ? value : undefined;
      const sm = num(v[2]);
      const memory = num(v[3]);
      const engines = num(v[7]);
      const clockHz = num(v[8]);
      const bandwidth = num(v[9]);
      this.builder.addDevice({
        deviceId: this.int(v[0], idCol),
        name: String(v[1]),
        ...(sm === undefined ? {} : { smCount: sm }),
        ...(memory === undefined ? {} : { memoryBytes: memory }),
        ...(v[4] === null || v[4] === undefined
          ? {}
          : { computeCapability: `${String(v[4])}.${String(v[5])}` }),
        ...(typeof v[6] === 'string' && v[6] !== '' ? { pciBusId: v[6] } : {}),
        ...(engines === undefined ? {} : { copyEngineCount: engines }),
        ...(clockHz === undefined ? {} : { clockRateKHz: Math.round(clockHz / 1000) }),
        ...(bandwidth === undefined ? {} : { memoryBandwidthBytesPerS: bandwidth }),
      });
    });
  }

  private meta(): { producer: string; createdAt?: string } {
    let producer = '';
    const metaTable = this.t.firstOf('META_DATA_EXPORT', 'EXPORT_META_DATA');
    if (metaTable !== undefined && this.t.columns(metaTable).has('name')) {
      this.rows(metaTable, ['name', col('value')], (v) => {
        if (v[0] === 'EXPORT_PRODUCT_VERSION') {
          producer = `nsys ${String(v[1])}`;
        }
      });
    }
    if (producer === '') {
      // The first string naming an install path (LIKE is case-blind for ASCII, so is the test).
      this.rows('StringIds', ['value'], (v) => {
        const text = String(v[0]);
        if (!/nsight-systems\//i.test(text)) {
          return true;
        }
        const version = /nsight-systems\/(\d{4}\.\d+(\.\d+)*)/i.exec(text);
        if (version !== null) {
          producer = `nsys ${version[1]}`;
        }
        return false;
      });
    }
    let createdAt: string | undefined;
    if (
      this.t.has('TARGET_INFO_SESSION_START_TIME') &&
      this.t.columns('TARGET_INFO_SESSION_START_TIME').has('utcEpochNs')
    ) {
      this.rows(
        'TARGET_INFO_SESSION_START_TIME',
        // As exact text: a number holds an INTEGER only to 2^53 (at 1.7e18 ns, 256 ns steps).
        ['utcEpochNs', { name: 'utcEpochNs', as: 'int-text' }],
        (v) => {
          const text = typeof v[1] === 'string' ? v[1] : undefined;
          const ms =
            text !== undefined
              ? Number(BigInt(text) / 1000000n) // SQLite's integer division
              : typeof v[0] === 'number'
                ? v[0] / 1e6
                : Number.NaN;
          if (Number.isFinite(ms) && ms > 0 && ms < 8.64e15) {
            createdAt = new Date(ms).toISOString();
            // Session times are ns since the session start: its epoch time is the clock's zero.
            if (typeof v[1] === 'string' && /^\d{1,19}$/.test(v[1])) {
              this.builder.addMeta({ clockEpochNs: v[1] });
            }
          }
          return false; // the first row only
        },
      );
    }
    return {
      producer: producer === '' ? 'nsys (SQLite export)' : producer,
      ...(createdAt === undefined ? {} : { createdAt }),
    };
  }
}
