// Runs ON THE GPU MACHINE (device-run.sh calibrated), against the device server started with a
// calibration of this GPU in its data dir: whether /api/devices offers "this GPU (calibrated)"
// and what it says was measured, then one run of a few presets on that profile, on the shipped
// profile of this GPU and on the GPU itself, each through POST /api/runs.
//   node scripts/gpu/calibrated-profile-check.mjs PORT SHIPPED_PROFILE
const [port, shipped = 'h200'] = process.argv.slice(2);
const base = `http://127.0.0.1:${port}`;
const calibratedName = 'this GPU (calibrated)';

async function api(path, init) {
  const response = await fetch(base + path, init);
  const text = await response.text();
  if (!response.ok) {
    throw new Error(`${path}: ${response.status} ${text}`);
  }
  return JSON.parse(text);
}

async function runToEnd(body) {
  const queued = await api('/api/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  for (;;) {
    const entry = await api(`/api/traces/${queued.id}`);
    if (['finished', 'failed', 'cancelled'].includes(entry.status)) {
      return entry;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const devices = await api('/api/devices');
console.log('probe devices:', JSON.stringify(devices.probe?.cuda?.devices?.map((d) => d.name)));
console.log('profiles:', JSON.stringify(devices.profiles.map((p) => p.name)));
const calibrated = devices.profiles.find((p) => p.name === calibratedName);
const measured = calibrated?.provenance?.measured;
console.log(
  'calibrated provenance:',
  JSON.stringify(measured && { ...measured, values: measured.values.length }),
  'inherited',
  JSON.stringify(calibrated?.provenance?.inherited),
);
const presets = [
  ['graphs', { useGraph: false }],
  ['graphs', { useGraph: true }],
  ['priorities', { usePriority: true }],
  ['pinned-vs-pageable', {}],
];
for (const [preset, params] of presets) {
  const lines = [];
  for (const [backend, target] of [['sim', calibratedName], ['sim', shipped], ['cuda']]) {
    const label = target === undefined ? backend : `${backend}:${target}`;
    try {
      const entry = await runToEnd({
        preset,
        params,
        backend,
        pace: 'fast',
        ...(target ? { target } : {}),
      });
      lines.push(
        `${label} ${entry.status} span ${(entry.spanNs / 1e6).toFixed(3)} ms ops ${entry.opCount}`,
      );
    } catch (error) {
      lines.push(`${label} ERROR ${error.message}`);
    }
  }
  console.log(`${preset} ${JSON.stringify(params)}\n  ${lines.join('\n  ')}`);
}
