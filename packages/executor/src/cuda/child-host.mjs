// The executor child process: the only place the native addon is loaded. A crash, a sticky
// CUDA error or a hung kernel ends this process, never the parent. Usage (by fork):
// child-host.mjs ADDON_PATH. Messages: ./protocol.ts.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';

const addonPath = process.argv[2] ?? '';
const send = (message) => {
  if (process.connected) {
    process.send(message);
  }
};

function load() {
  if (!existsSync(addonPath)) {
    return { addon: undefined, reason: `native addon not built (${addonPath} does not exist)` };
  }
  try {
    return { addon: createRequire(import.meta.url)(addonPath), reason: undefined };
  } catch (error) {
    return { addon: undefined, reason: `native addon failed to load: ${error.message}` };
  }
}

const { addon, reason } = load();
if (addon === undefined) {
  send({ type: 'ready', probe: { addon: { loaded: false, path: addonPath, reason } } });
} else {
  const probe = addon.probe();
  send({
    type: 'ready',
    probe: { addon: { loaded: true, path: addonPath }, cuda: probe.cuda, cupti: probe.cupti },
  });
}

let running = false;
let safetyPoll;

// A drain joins GPU records to their calls under the lock the issuing thread records through, and
// the first record after a drain rings the doorbell from that thread: drains back to back took
// ~0.5 us from every launch (fixtures/runs/launch-host-cost.txt). So a ring drains at most every
// DRAIN_EVERY_MS; the addon keeps one ring pending until then, and the live view waits that long.
const DRAIN_EVERY_MS = 20;
let lastDrainMs = -DRAIN_EVERY_MS;
let pumpScheduled = false;

function schedulePump() {
  if (pumpScheduled) {
    return;
  }
  pumpScheduled = true;
  const waitMs = lastDrainMs + DRAIN_EVERY_MS - performance.now();
  const run = () => {
    pumpScheduled = false;
    pump();
  };
  if (waitMs <= 0) {
    setImmediate(run);
  } else {
    setTimeout(run, waitMs);
  }
}

// Pulls whatever the addon holds; after the final drain, reports the end once.
function pump() {
  lastDrainMs = performance.now();
  const bytes = addon.drain();
  if (bytes.length > 0) {
    send({ type: 'records', bytes });
  }
  const status = addon.status();
  if (running && status.drained === true) {
    running = false;
    clearInterval(safetyPoll);
    send({ type: 'ended', status });
  }
}

process.on('message', (message) => {
  try {
    if (addon === undefined) {
      send({ type: 'error', message: reason });
      return;
    }
    if (message.type === 'run') {
      // The doorbell only schedules a drain; the addon coalesces rings while one is pending.
      const started = addon.start(message.plan, message.options, schedulePump);
      running = true;
      send({ type: 'started', ...started });
      safetyPoll = setInterval(pump, 50);
    } else if (message.type === 'cancel') {
      addon.cancel();
    } else if (message.type === 'copy-bandwidth') {
      send({ type: 'bandwidth', bytesPerS: addon.copyBandwidth(message) });
    }
  } catch (error) {
    send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
});

process.on('disconnect', () => process.exit(0));
