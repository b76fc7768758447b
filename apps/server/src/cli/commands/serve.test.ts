import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../command.ts';
import { serveCommand } from './serve.ts';

describe('streamscope serve', () => {
  it('prints the URL and the backend, serves, and stops cleanly on SIGTERM', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'streamscope-serve-'));
    const out: string[] = [];
    let announce: (() => void) | undefined;
    const announced = new Promise<void>((resolve) => (announce = resolve));
    const status = serveCommand.run(['--port', '0', '--data', dataDir, '--backend', 'sim'], {
      out: (line) => {
        out.push(line);
        if (line.startsWith('backend:')) {
          announce?.();
        }
      },
      err: () => undefined,
    });
    await announced;
    const url = /^streamscope serving (http:\/\/127\.0\.0\.1:\d+\/)$/.exec(out[0] ?? '')?.[1];
    expect(url).toBeDefined();
    expect(out[1]).toBe(`data: ${dataDir}`);
    expect(out[2]).toBe('backend: simulator (chosen with --backend sim)');
    const health = await fetch(`${url!}api/health`);
    expect(await health.json()).toMatchObject({ ok: true, defaultBackend: 'sim' });
    process.emit('SIGTERM');
    expect(await status).toBe(0);
    await rm(dataDir, { recursive: true, force: true });
  }, 30_000);

  it('rejects bad flags as usage errors', async () => {
    const io = { out: () => undefined, err: () => undefined };
    await expect(serveCommand.run(['--backend', 'tpu'], io)).rejects.toThrow(UsageError);
    await expect(serveCommand.run(['--port', '70000'], io)).rejects.toThrow(
      '--port must be an integer in [0, 65535]',
    );
    await expect(serveCommand.run(['extra'], io)).rejects.toThrow("unexpected argument 'extra'");
  });
});
