import { readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { generateKineto } from './gen-kineto.ts';
import type { Generated } from './gen-nsys-json.ts';
import { generateNsysJson } from './gen-nsys-json.ts';
import { generateNsysSqlite } from './gen-nsys-sqlite.ts';

/** Big realistic exports from the recorded fixtures (the files stay out of the repository). */
export type GenFormat = 'nsys-json' | 'nsys-sqlite' | 'kineto';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures');
/** The recorded run each format repeats: a training loop with API calls, syncs, events, NVTX. */
export const defaultTemplates: Record<GenFormat, string> = {
  'nsys-json': path.join(fixtures, 'nsys/2025.3.1/train.json'),
  'nsys-sqlite': path.join(fixtures, 'nsys/2025.3.1/train.sqlite'),
  kineto: path.join(fixtures, 'kineto/train.pt.trace.json.gz'),
};

function readTemplate(file: string): Uint8Array {
  const bytes = readFileSync(file);
  return file.endsWith('.gz') ? gunzipSync(bytes) : bytes;
}

/** Writes an export of `format` with at least `gpuOps` GPU ops to `outPath`. */
export function generate(
  format: GenFormat,
  gpuOps: number,
  outPath: string,
  template = defaultTemplates[format],
): Generated {
  const bytes = readTemplate(template);
  if (format === 'nsys-sqlite') {
    return generateNsysSqlite(new Uint8Array(bytes), gpuOps, outPath);
  }
  const text = new TextDecoder().decode(bytes);
  return format === 'kineto'
    ? generateKineto(text, gpuOps, outPath)
    : generateNsysJson(text, gpuOps, outPath);
}

const usage =
  'usage: tsx scripts/gen/main.ts nsys-json|nsys-sqlite|kineto GPU_OPS OUT [--template FILE]';

if (
  process.argv[1] !== undefined &&
  fileURLToPath(import.meta.url) === path.resolve(process.argv[1])
) {
  const [format, count, out] = process.argv.slice(2);
  const at = process.argv.indexOf('--template');
  const gpuOps = Number(count);
  if (
    (format !== 'nsys-json' && format !== 'nsys-sqlite' && format !== 'kineto') ||
    !Number.isInteger(gpuOps) ||
    gpuOps < 1 ||
    out === undefined
  ) {
    process.stderr.write(`${usage}\n`);
    process.exit(2);
  }
  const result = generate(format, gpuOps, out, at > 0 ? process.argv[at + 1] : undefined);
  process.stdout.write(`${JSON.stringify({ format, out, ...result })}\n`);
}
