import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { staticWeb } from './static-web.ts';

let close = (): Promise<void> => Promise.resolve();

afterEach(async () => {
  await close();
});

async function serve(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'streamscope-web-'));
  await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>t</title>');
  await writeFile(path.join(dir, 'sql.wasm'), new Uint8Array([0, 0x61, 0x73, 0x6d]));
  const app = express();
  app.use(staticWeb(dir));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  close = async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  };
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}

describe('the web app', () => {
  it('lets scripts compile WebAssembly (sql.js in the local import worker) but never eval', async () => {
    const base = await serve();
    const page = await fetch(`${base}/#/import`);
    const policy = page.headers.get('content-security-policy') ?? '';
    const scriptSrc = policy.split('; ').find((d) => d.startsWith('script-src '));
    expect(scriptSrc).toBe("script-src 'self' 'wasm-unsafe-eval'");
    expect(policy).toContain("worker-src 'self' blob:");
  });

  it('serves .wasm as application/wasm, so browsers compile it while it streams in', async () => {
    const base = await serve();
    const wasm = await fetch(`${base}/sql.wasm`);
    expect(wasm.headers.get('content-type')).toBe('application/wasm');
  });
});
