import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cliAllocatorEnv } from './allocator-env.ts';

describe('the CLI allocator settings', () => {
  it('are what `pnpm streamscope` starts the CLI with', () => {
    const pkg = JSON.parse(
      readFileSync(fileURLToPath(new URL('../../../../package.json', import.meta.url)), 'utf8'),
    ) as { scripts: Record<string, string> };
    const settings = Object.entries(cliAllocatorEnv).map(([k, v]) => `${k}=${v}`);
    expect(pkg.scripts['streamscope']).toBe(
      `${settings.join(' ')} node apps/server/scripts/streamscope.mjs`,
    );
  });
});
