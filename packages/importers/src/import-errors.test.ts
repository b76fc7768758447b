import { describe, expect, it } from 'vitest';
import { FlowKind } from '@streamscope/trace';
import { importTrace } from './import-trace.ts';
import { importErrorOf, importFixture, readFixture } from './test-support.ts';

describe('bad input gives a precise ImportError, never a crash or a hang', () => {
  it('names the line and field of an absurd timestamp', async () => {
    const error = await importErrorOf(importFixture('broken/absurd-numbers.json'));
    expect(error).toMatchObject({ file: 'broken/absurd-numbers.json', line: 3, field: 'startNs' });
    expect(error.message).toMatch(
      /startNs must be a time in ns in \[0, 2\^53\), got 99999999999999999999/,
    );
  });

  it('names the line and field of a missing timestamp', async () => {
    const error = await importErrorOf(importFixture('broken/missing-field.json'));
    expect(error).toMatchObject({ line: 2, field: 'startNs' });
    expect(error.message).toMatch(/startNs is missing/);
  });

  it('names the line with invalid UTF-8', async () => {
    const error = await importErrorOf(importFixture('broken/invalid-utf8.json'));
    expect(error).toMatchObject({ line: 3 });
    expect(error.message).toMatch(/invalid UTF-8/);
  });

  it('refuses a file that is no trace at all', async () => {
    const error = await importErrorOf(importFixture('broken/wrong-format.json'));
    expect(error.message).toMatch(/not a format streamscope reads/);
  });

  it('refuses an nsys export that holds nothing to show, instead of importing 0 ops', async () => {
    // Only a process record: no kernel, copy, API call or range.
    const json =
      '{"Type":27,"CommEvent":{"Commname":"python3","GlobalPid":"281491770703872","Timestamp":"0"}}\n';
    const error = await importErrorOf(
      importTrace(new TextEncoder().encode(json), { fileName: 'empty.json' }),
    );
    expect(error.message).toMatch(
      /^empty\.json: nothing to import: no GPU operation, API call or range/,
    );
  });

  it('tells how to export an .nsys-rep report', async () => {
    const error = await importErrorOf(importFixture('broken/report.nsys-rep'));
    expect(error.message).toContain('nsys export --type sqlite -o report.sqlite report.nsys-rep');
    // The place names the file once; the problem does not repeat it.
    expect(error.message).toMatch(/^broken\/report\.nsys-rep: this is an Nsight Systems report/);
    expect(error.message.split('report.nsys-rep').length - 1).toBe(2); // the place and the command
  });

  it('names the table that a SQLite file lacks', async () => {
    const error = await importErrorOf(importFixture('broken/missing-table.sqlite'));
    expect(error).toMatchObject({ table: 'StringIds' });
  });

  it('names the table and column that a SQLite table lacks', async () => {
    const error = await importErrorOf(importFixture('broken/missing-column.sqlite'));
    expect(error).toMatchObject({ table: 'CUPTI_ACTIVITY_KIND_KERNEL', field: 'streamId' });
  });

  it('reports a truncated SQLite file as damaged', async () => {
    const error = await importErrorOf(importFixture('broken/truncated.sqlite'));
    expect(error.message).toMatch(/damaged|truncated|malformed|not a database/i);
  });

  it('stops a gzip bomb by its compression ratio', async () => {
    const error = await importErrorOf(importFixture('broken/gzip-bomb.json.gz'));
    expect(error.message).toMatch(/compression bomb/);
  }, 20_000);

  it('stops inflating at the configured size limit', async () => {
    const error = await importErrorOf(
      importFixture('broken/gzip-bomb.json.gz', { maxBytes: 1 << 20 }),
    );
    expect(error.message).toMatch(/inflates past the 1048576-byte limit/);
  });

  it('refuses a file over the configured size limit', async () => {
    const error = await importErrorOf(
      importFixture('nsys/2025.3.1/train.json', { maxBytes: 100_000 }),
    );
    expect(error.message).toMatch(/larger than the 100000-byte limit/);
  });

  it('reports a corrupt gzip stream', async () => {
    // Whole, with one byte changed: inflating fails, or the data's checksum does at its end.
    const bytes = readFixture('kineto/train.pt.trace.json.gz').slice();
    bytes[5000] = bytes[5000]! ^ 0xff;
    const error = await importErrorOf(importTrace(bytes, { fileName: 'bad.json.gz' }));
    expect(error.message).toMatch(/^bad\.json\.gz: (the gzip data is corrupt|.*JSON)/);
  });

  it('reads a gzip file cut short as far as it goes, as a plain file cut short', async () => {
    // A .json.gz copied in part: the first 20,000 of its compressed bytes.
    const whole = readFixture('kineto/train.pt.trace.json.gz');
    const { trace, warnings } = await importTrace(whole.slice(0, 20_000), {
      fileName: 'cut.json.gz',
    });
    expect(trace.ranges.count).toBeGreaterThan(500);
    expect(warnings).toContain(
      'the gzip data ends early, at compressed byte 20000 (the file was cut short): what it held was read',
    );
    expect(warnings.join('\n')).toMatch(
      /the trace is cut off: the last event \(\d+ bytes\) was dropped/,
    );
  });

  it('recovers a truncated nsys JSON export with warnings', async () => {
    const { warnings } = await importFixture('broken/truncated.json');
    expect(warnings.join('\n')).toMatch(/ends in the middle of line 14/);
    expect(warnings.join('\n')).toMatch(/no string table/);
  });

  it('keeps dangling waits and flows, with warnings', async () => {
    const { trace, warnings } = await importFixture('broken/dangling-flows.json');
    expect(trace.ops.count).toBe(4);
    expect(warnings.join('\n')).toMatch(/1 waits name an event record that is not in the trace/);
  });

  it('says apart the waits on events never recorded, which lose nothing', async () => {
    // The recorded DDP run: 70 cudaStreamWaitEvent on an event before its first record (sync id
    // 0; the export's records count from 1): CUDA returns at once. The other 394 stream waits and
    // the 460 event syncs are joined to the record they name.
    const { trace, warnings } = await importFixture('nsys/2025.3.1/ddp2gpu.sqlite.gz');
    expect(warnings).toContain(
      '70 waits on CUDA events never recorded before them (CUDA returns at once: they waited for nothing)',
    );
    expect(warnings.join('\n')).not.toMatch(/not in the trace/);
    const flows = trace.flows.columns();
    let recordToWait = 0;
    for (let i = 0; i < flows.count; i++) {
      recordToWait += flows.kind[i] === FlowKind.EventRecordToWait ? 1 : 0;
    }
    expect(recordToWait).toBe(394 + 460);
  });

  it('names the event of a bad Chrome trace timestamp', async () => {
    const text =
      '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":-5,"dur":1}]}';
    const error = await importErrorOf(
      importTrace(new TextEncoder().encode(text), { fileName: 'bad.json' }),
    );
    expect(error).toMatchObject({ path: 'traceEvents[0].ts' });
  });

  it('names the byte of a Chrome trace that is not JSON', async () => {
    const text = '{"traceEvents":[{"ph":"X",}]}';
    const error = await importErrorOf(
      importTrace(new TextEncoder().encode(text), { fileName: 'bad.json' }),
    );
    expect(error.path).toBe('traceEvents[0]');
    expect(error.message).toMatch(/not valid JSON/);
  });

  it('reports an nsys line that is not JSON by its number', async () => {
    const text = '{"data":["","k"]}\n{"Type":79,"CudaEvent":{"startNs":"1",,}}\n';
    const error = await importErrorOf(
      importTrace(new TextEncoder().encode(text), { fileName: 'bad.json' }),
    );
    expect(error).toMatchObject({ line: 2 });
  });

  it('rejects an empty file', async () => {
    const error = await importErrorOf(importTrace(new Uint8Array(0), { fileName: 'empty.json' }));
    expect(error.message).toMatch(/empty/);
  });
});

describe('cancelling', () => {
  it('rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await importErrorOf(
      importFixture('nsys/2025.3.1/train.json', { signal: controller.signal }),
    );
    expect(error.message).toMatch(/cancelled/);
  });

  it('stops between chunks when aborted during the import', async () => {
    const controller = new AbortController();
    const bytes = readFixture('nsys/2025.3.1/train.json');
    async function* slowChunks(): AsyncGenerator<Uint8Array> {
      for (let at = 0; at < bytes.length; at += 4096) {
        if (at === 8192) {
          controller.abort();
        }
        await Promise.resolve(); // a real stream yields to the event loop between chunks
        yield bytes.subarray(at, at + 4096);
      }
    }
    const error = await importErrorOf(
      importTrace(slowChunks(), { fileName: 'train.json', signal: controller.signal }),
    );
    expect(error.message).toMatch(/cancelled/);
  });
});

describe('bad SQLite values', () => {
  it('names the table, column and row of an absurd time', async () => {
    const error = await importErrorOf(importFixture('broken/absurd-numbers.sqlite'));
    expect(error).toMatchObject({ table: 'CUPTI_ACTIVITY_KIND_KERNEL', field: 'start' });
    expect(error.message).toMatch(/row 2: expected a time in ns in \[0, 2\^53\)/);
  });
});
