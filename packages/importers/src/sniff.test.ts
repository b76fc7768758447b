import { describe, expect, it } from 'vitest';
import { nsysExportAdvice, sniffFormat } from './sniff.ts';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('sniffFormat', () => {
  it('tells formats by content, not by name', () => {
    expect(sniffFormat(text('{"data":["","x"]}\n'), 'a.txt')).toEqual({
      ok: true,
      format: 'nsys-json',
      gzip: false,
    });
    expect(sniffFormat(text('{"Type":79,"CudaEvent":{}}'), 'x')).toMatchObject({
      format: 'nsys-json',
    });
    expect(sniffFormat(text('{"type":"String","id":"0","value":""}'), 'x')).toMatchObject({
      format: 'nsys-json',
    });
    expect(
      sniffFormat(text('\uFEFF  {"schemaVersion":1,"traceEvents":[]}'), 'x.sqlite'),
    ).toMatchObject({ format: 'chrome-trace' });
    expect(sniffFormat(text('[{"ph":"X"'), 'trace.json')).toMatchObject({ format: 'chrome-trace' });
    expect(sniffFormat(text('SQLite format 3\u0000rest'), 'trace.json')).toMatchObject({
      format: 'nsys-sqlite',
    });
    expect(sniffFormat(text('SSB1....'), 'x')).toMatchObject({ format: 'streamscope-trace' });
    expect(sniffFormat(new Uint8Array([0x1f, 0x8b, 8, 0]), 'x.json.gz')).toMatchObject({
      gzip: true,
    });
  });

  it('explains .nsys-rep and .qdrep files with the export command', () => {
    const result = sniffFormat(text('NVIDIA Tegra Profiler Report'), 'runs/step.qdrep');
    expect(result).toEqual({
      ok: false,
      error: expect.stringContaining(
        'nsys export --type sqlite -o step.sqlite step.qdrep',
      ) as unknown,
    });
    // Read where nsys cannot run (a browser's Open locally): where it can, it is said too.
    expect(result).toMatchObject({
      error: expect.stringContaining(
        'or upload the report to a streamscope server that has nsys (not "Open locally"), or run streamscope import where nsys is installed',
      ) as unknown,
    });
  });

  it('quotes a report name in the export command as a shell needs it', () => {
    expect(nsysExportAdvice('runs/step 3.nsys-rep')).toContain(
      "nsys export --type sqlite -o 'step 3.sqlite' 'step 3.nsys-rep' (or --type json -o 'step 3.json')",
    );
    // A name that would run a command, or end a quote, when pasted into a shell.
    expect(nsysExportAdvice('$(reboot)`id`.nsys-rep')).toContain(
      "-o '$(reboot)`id`.sqlite' '$(reboot)`id`.nsys-rep'",
    );
    expect(nsysExportAdvice("it's.qdrep")).toContain(`-o 'it'\\''s.sqlite' 'it'\\''s.qdrep'`);
    // A name nsys would take for an option.
    expect(nsysExportAdvice('--help.nsys-rep')).toContain(
      '-o ./--help.sqlite ./--help.nsys-rep (or --type json -o ./--help.json)',
    );
    // Plain names stay as they are.
    expect(nsysExportAdvice('run-1_a.b+c@d.nsys-rep')).toContain(
      '-o run-1_a.b+c@d.sqlite run-1_a.b+c@d.nsys-rep',
    );
  });

  it('reads an export saved under a report name, and names nsys export only for real reports', () => {
    expect(sniffFormat(text('{"data":["","x"]}\n'), 'train.nsys-rep')).toEqual({
      ok: true,
      format: 'nsys-json',
      gzip: false,
    });
    expect(sniffFormat(text('{"traceEvents":[]}'), 'step.qdrep')).toMatchObject({
      ok: true,
      format: 'chrome-trace',
    });
    expect(sniffFormat(text('SQLite format 3\u0000'), 'x.nsys-rep')).toMatchObject({
      format: 'nsys-sqlite',
    });
    const fake = sniffFormat(text('PK\u0003\u0004 a zip'), 'fake.nsys-rep');
    expect(fake.ok).toBe(false);
    expect(fake).not.toMatchObject({
      error: expect.stringContaining('nsys export --type') as unknown,
    });
    expect(sniffFormat(text('NVIDIA Tegra Profiler Report\u0000'), 'dir/capture.bin')).toEqual({
      ok: false,
      error: expect.stringContaining(
        'nsys export --type sqlite -o capture.sqlite capture.bin',
      ) as unknown,
    });
  });

  it('refuses what it cannot read', () => {
    expect(sniffFormat(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), 'x.json')).toMatchObject({
      ok: false,
    });
    expect(sniffFormat(new Uint8Array(0), 'x.json')).toEqual({
      ok: false,
      error: 'the file is empty',
    });
  });
});
