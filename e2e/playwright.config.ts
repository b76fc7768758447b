import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';

// A fixed port for the test server and a fresh data directory per run.
const port = 4391;
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
// The runner makes the folder and removes it when it exits, after the server has stopped (its
// workers inherit STREAMSCOPE_E2E_DATA); a folder passed in STREAMSCOPE_E2E_DATA is kept.
let dataDir = process.env['STREAMSCOPE_E2E_DATA'];
if (dataDir === undefined) {
  const made = mkdtempSync(path.join(tmpdir(), 'streamscope-e2e-'));
  dataDir = made;
  process.on('exit', () => rmSync(made, { recursive: true, force: true }));
}
process.env['STREAMSCOPE_E2E_DATA'] = dataDir;

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  workers: 1,
  fullyParallel: false,
  forbidOnly: true,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  outputDir: path.join(repoRoot, 'test-results'),
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    browserName: 'chromium',
    viewport: { width: 1440, height: 900 },
    deviceScaleFactor: 1,
    acceptDownloads: true,
    launchOptions: {
      // Debian's chromium, never a downloaded browser (STYLE.md B.8).
      executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    command: `pnpm --filter @streamscope/web build && pnpm streamscope serve --port ${port} --data "${dataDir}"`,
    cwd: repoRoot,
    url: `http://127.0.0.1:${port}/api/health`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
