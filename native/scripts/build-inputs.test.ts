import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script, without types
import { buildInputsDigest } from './build-inputs.mjs';

const digest = buildInputsDigest as (src: string, script: string, settings: unknown[]) => string;

describe('the native build is skipped only when nothing it reads changed', () => {
  it('changes the digest with a source, a header, the script or a setting, and only then', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'native-inputs-'));
    const src = path.join(dir, 'src');
    const script = path.join(dir, 'build.mjs');
    await mkdir(src);
    await writeFile(path.join(src, 'a.cc'), 'int a;');
    await writeFile(path.join(src, 'a.h'), 'int a();');
    await writeFile(path.join(src, 'notes.txt'), 'not compiled');
    await writeFile(script, '// build');
    const first = digest(src, script, ['nvcc', 'v20']);
    expect(digest(src, script, ['nvcc', 'v20'])).toBe(first);
    // A file the build does not read leaves it alone.
    await writeFile(path.join(src, 'notes.txt'), 'changed');
    expect(digest(src, script, ['nvcc', 'v20'])).toBe(first);
    await writeFile(path.join(src, 'a.h'), 'int a(int);');
    const header = digest(src, script, ['nvcc', 'v20']);
    expect(header).not.toBe(first);
    await writeFile(path.join(src, 'b.cu'), '__global__ void k() {}');
    const added = digest(src, script, ['nvcc', 'v20']);
    expect(added).not.toBe(header);
    await writeFile(script, '// build, changed');
    const scripted = digest(src, script, ['nvcc', 'v20']);
    expect(scripted).not.toBe(added);
    expect(digest(src, script, ['nvcc', 'v22'])).not.toBe(scripted);
  });
});
