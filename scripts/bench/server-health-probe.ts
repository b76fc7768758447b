import process from 'node:process';

// The prober half of `pnpm bench server`, in its own process so that the uploads and downloads
// the benchmark drives do not delay its clock: GET /api/health one request at a time, a few ms
// apart, until stdin closes; then prints the latencies' JSON figures. A probe that takes longer
// than the gap also counts the probes it kept from being sent, each with the wait it would have
// seen (no coordinated omission: a 1 s stall is 200 slow probes, not one).
const url = process.argv[2];
if (url === undefined) {
  throw new Error('usage: server-health-probe.ts HEALTH_URL');
}
const gapMs = 5;
const latenciesMs: number[] = [];
let failures = 0;
let stopped = false;
process.stdin.resume();
process.stdin.on('end', () => {
  stopped = true;
});

while (!stopped) {
  const t0 = performance.now();
  try {
    const response = await fetch(url);
    await response.arrayBuffer();
    if (response.ok) {
      const ms = performance.now() - t0;
      latenciesMs.push(ms);
      for (let missed = ms - gapMs; missed > gapMs; missed -= gapMs) {
        latenciesMs.push(missed);
      }
    } else {
      failures++;
    }
  } catch {
    failures++;
  }
  await new Promise((resolve) => setTimeout(resolve, gapMs));
}
latenciesMs.sort((a, b) => a - b);
const at = (q: number): number =>
  latenciesMs[Math.min(latenciesMs.length - 1, Math.floor(q * latenciesMs.length))] ?? NaN;
process.stdout.write(
  `${JSON.stringify({ count: latenciesMs.length, failures, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) })}\n`,
);
