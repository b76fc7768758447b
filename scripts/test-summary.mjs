// Prints the whole suite's closing line, `Tests: N passed, N failed, N skipped`, from the JSON
// reports of vitest and Playwright written by scripts/test.sh. Exits 1 if a report is missing
// or anything failed, so a run that silently executed nothing cannot pass.
import { readFileSync } from 'node:fs';

const [vitestPath, e2ePath] = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
let problems = 0;

function read(path, what) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    console.error(`test-summary: no ${what} report at ${path} (${error.message})`);
    problems++;
    return undefined;
  }
}

const unit = read(vitestPath, 'vitest');
if (unit !== undefined) {
  passed += unit.numPassedTests;
  failed += unit.numFailedTests;
  skipped += unit.numPendingTests + unit.numTodoTests;
  console.log(`unit: ${unit.numPassedTests} passed, ${unit.numFailedTests} failed`);
}
const e2e = read(e2ePath, 'Playwright');
if (e2e !== undefined) {
  const s = e2e.stats;
  passed += s.expected + s.flaky;
  failed += s.unexpected;
  skipped += s.skipped;
  console.log(`browser: ${s.expected + s.flaky} passed, ${s.unexpected} failed`);
}
console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = failed > 0 || problems > 0 || passed === 0 ? 1 : 0;
