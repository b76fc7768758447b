import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { kernelRunTrace, saveTrace } from '@streamscope/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceEntry } from '../../api-types.ts';
import { traceTools } from '../../integrations/trace-tools.ts';
import { tilesAtImportMinOps } from '../../storage/tile-format.ts';
import { kernelTrace } from '../../test-support/kernel-trace.ts';
import type { TestServer } from '../../test-support/test-server.ts';
import { startTestServer } from '../../test-support/test-server.ts';
import { upload } from '../../test-support/upload.ts';
import type { TraceFileRef } from '../../workers/protocol.ts';

let t: TestServer;
/** Pyramids built on first open (not at import). */
const openBuilds: string[] = [];

beforeAll(async () => {
  const tools = traceTools();
  t = await startTestServer({
    tools: {
      ...tools,
      buildTiles: (trace: TraceFileRef, outPath: string) => {
        openBuilds.push(outPath);
        return tools.buildTiles!(trace, outPath);
      },
    },
  });
});

afterAll(async () => {
  await t.close();
});

async function imported(bytes: Uint8Array, fileName: string): Promise<TraceEntry> {
  const reply = await upload<TraceEntry>(t.base, bytes, fileName);
  expect(reply.status).toBe(201);
  return reply.body;
}

// A 1M-op upload is decoded, encoded and tiled in a worker: seconds on a loaded 2-core machine.
describe('the pyramid of an import', { timeout: 180_000 }, () => {
  it('is beside a big trace once its import answers, and its first open builds nothing', async () => {
    const entry = await imported(saveTrace(kernelRunTrace(tilesAtImportMinOps)), 'big.sstrace');
    expect(entry.opCount).toBe(tilesAtImportMinOps);
    expect(existsSync(t.server.store.tilesPath(entry.id))).toBe(true);
    // Nothing of it is left beside the upload.
    expect(await readdir(t.server.store.uploadsDir)).toEqual([]);

    const meta = await fetch(`${t.base}/api/traces/${entry.id}/tiles/meta`);
    expect(meta.status).toBe(200);
    expect(await meta.json()).toMatchObject({ opCount: tilesAtImportMinOps });
    expect(openBuilds).toEqual([]);
  });

  it('of a small trace is left to its first open', async () => {
    const entry = await imported(saveTrace(kernelTrace(2000)), 'small.sstrace');
    expect(existsSync(t.server.store.tilesPath(entry.id))).toBe(false);
    const meta = await fetch(`${t.base}/api/traces/${entry.id}/tiles/meta`);
    expect(meta.status).toBe(200);
    expect(openBuilds).toEqual([t.server.store.tilesPath(entry.id)]);
  });
});
