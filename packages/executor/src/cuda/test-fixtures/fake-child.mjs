// Stands in for child-host.mjs in tests (no GPU needed): its "addon path" argument is a JSON
// behaviour: {mode: 'finish' | 'lossy' | 'hang' | 'crash' | 'stream' | 'cancellable' | 'no-gpu', batch: base64}.
import process from 'node:process';

const behaviour = JSON.parse(process.argv[2] ?? '{}');
const send = (m) => process.connected && process.send(m);
const device = {
  deviceId: 0,
  name: 'Fake GPU',
  smCount: 4,
  copyEngineCount: 2,
  priorityRange: [-5, 0],
};
send({
  type: 'ready',
  probe:
    behaviour.mode === 'no-gpu'
      ? {
          addon: { loaded: true, path: 'fake' },
          cuda: {
            ok: false,
            runtimeVersion: 13000,
            driverVersion: 0,
            errorName: 'cudaErrorInsufficientDriver',
            error: 'cudaGetDeviceCount: cudaErrorInsufficientDriver (35)',
            devices: [],
          },
        }
      : {
          addon: { loaded: true, path: 'fake' },
          cuda: { ok: true, runtimeVersion: 13000, driverVersion: 13000, devices: [device] },
        },
});
process.on('message', (m) => {
  if (m.type === 'run') {
    send({ type: 'started', originNs: '1000000', timingMethod: 'cupti', timingNote: '' });
    send({ type: 'records', bytes: new Uint8Array(Buffer.from(behaviour.batch ?? '', 'base64')) });
    if (behaviour.mode === 'finish') {
      send({ type: 'ended', status: { state: 'finished', dropped: 0 } });
    } else if (behaviour.mode === 'lossy') {
      // What the native sink counts past its bounds (native/src/collector-bounds.h).
      const lost = { dropped: 0, unmatched: 3, unresolvedWaits: 2, namesDropped: 5 };
      send({ type: 'ended', status: { state: 'finished', ...lost } });
    } else if (behaviour.mode === 'crash') {
      setTimeout(() => process.kill(process.pid, 'SIGSEGV'), 20);
    } else if (behaviour.mode === 'stream') {
      // Keeps running (as a long GPU run would) until it is killed.
      setInterval(() => send({ type: 'records', bytes: new Uint8Array(0) }), 20);
    } else if (behaviour.mode === 'hang') {
      setInterval(() => undefined, 1000); // ignores cancel, like a kernel that never ends
    }
  } else if (m.type === 'cancel' && behaviour.mode === 'cancellable') {
    send({ type: 'ended', status: { state: 'cancelled' } });
  }
});
process.on('disconnect', () => {
  if (behaviour.mode !== 'hang') {
    process.exit(0);
  }
});
