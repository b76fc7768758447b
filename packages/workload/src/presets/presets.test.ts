import { describe, expect, it } from 'vitest';
import { validateWorkload } from '../validate.ts';
import { workloadJsonSchema } from '../schema.ts';
import {
  PresetError,
  buildPreset,
  presetDescription,
  presetRunTitle,
  presets,
} from './registry.ts';

describe('presets', () => {
  it('cover every scenario of the issue, each with a pitfall parameter it declares', () => {
    expect(presets.map((p) => p.name).sort()).toEqual(
      [
        'ddp-bucketing',
        'default-stream',
        'events-vs-device-sync',
        'graphs',
        'issue-order',
        'malloc-in-loop',
        'over-sync',
        'overlap-blog',
        'pinned-vs-pageable',
        'pipeline',
        'priorities',
        'stream-count',
      ].sort(),
    );
    for (const p of presets) {
      expect(
        p.params.map((q) => q.name),
        p.name,
      ).toContain(p.pitfallParam);
    }
  });

  it('validate with their defaults and with every option of every enum and bool', () => {
    for (const p of presets) {
      const variants: Record<string, string | boolean>[] = [{}];
      for (const param of p.params) {
        for (const option of param.options ?? []) {
          variants.push({ [param.name]: option });
        }
        if (param.type === 'bool') {
          variants.push({ [param.name]: !(param.default as boolean) });
        }
      }
      for (const values of variants) {
        const result = validateWorkload(buildPreset(p.name, values));
        expect(result.ok ? [] : result.errors, `${p.name} ${JSON.stringify(values)}`).toEqual([]);
      }
    }
  });

  it('builds the blog workload: 4 streams over 16 MiB, issued in the chosen order', () => {
    const result = validateWorkload(buildPreset('overlap-blog', { variant: 'breadth-first' }));
    if (!result.ok) {
      throw new Error(JSON.stringify(result.errors));
    }
    const kinds = result.plan.threads[0]!.ops.filter(
      (o) => o.kind === 'copy' || o.kind === 'kernel',
    );
    // breadth-first: 4 H2D, then 4 kernels, then 4 D2H, each of 4 MiB / 4096 blocks
    expect(kinds.map((o) => (o.kind === 'copy' ? o.direction : 'k')).join(' ')).toBe(
      'htod htod htod htod k k k k dtoh dtoh dtoh dtoh',
    );
    expect(kinds[0]).toMatchObject({ bytes: 4 * 1024 ** 2 });
    expect(kinds[4]).toMatchObject({ grid: [4096, 1, 1], block: [256, 1, 1], mode: 'work' });
    const sequential = validateWorkload(buildPreset('overlap-blog', { variant: 'sequential' }));
    expect(
      sequential.ok &&
        sequential.plan.threads[0]!.ops.filter((o) => o.kind === 'copy' && !o.async).length,
    ).toBe(2);
  });

  it('takes parameter values as text, the way --set passes them', () => {
    const w = buildPreset('pipeline', { chunks: '1', size: '8MiB', kernelUs: '100' });
    expect(w.name).toBe('pipeline (1 chunk)');
    expect(w.buffers?.[0]).toMatchObject({ size: 8 * 1024 ** 2 });
    expect(buildPreset('graphs', { useGraph: 'false' }).name).toBe('graphs (launches)');
  });

  it('names the preset, parameter and problem in its errors', () => {
    expect(() => buildPreset('overlap')).toThrow(PresetError);
    expect(() => buildPreset('overlap')).toThrow(
      /unknown preset "overlap" \(presets: overlap-blog,/,
    );
    expect(() => buildPreset('pipeline', { chunk: 2 })).toThrow(
      /preset "pipeline" has no parameter "chunk"/,
    );
    expect(() => buildPreset('pipeline', { chunks: 0 })).toThrow(
      /parameter chunks: 0 is below the minimum 1/,
    );
    expect(() => buildPreset('pipeline', { chunks: '2.5' })).toThrow(
      /chunks: expected a whole number, got 2.5/,
    );
    expect(() => buildPreset('pipeline', { size: '64 parsecs' })).toThrow(
      /parameter size: .*unknown size unit "parsecs"/,
    );
    expect(() => buildPreset('overlap-blog', { variant: 'v3' })).toThrow(
      /expected one of sequential, depth-first, breadth-first, got "v3"/,
    );
    expect(() => buildPreset('graphs', { useGraph: 'yes' })).toThrow(/expected true or false/);
  });
});

describe('presetRunTitle', () => {
  it('names every parameter as run, the pitfall first, sizes in binary units', () => {
    expect(presetRunTitle('overlap-blog', { streams: '8', size: 33554432 })).toBe(
      'NVIDIA blog: overlap data transfers (variant breadth-first, streams 8, size 32 MiB)',
    );
    const off = presetRunTitle('priorities', { usePriority: 'false' });
    const on = presetRunTitle('priorities', { usePriority: true });
    expect(off).toContain('(no usePriority');
    expect(on).toContain('(usePriority');
    expect(() => presetRunTitle('overlap-blog', { streams: 0 })).toThrow(PresetError);
  });
});

describe('presetDescription', () => {
  it('quotes the values set, not the defaults, where a description names a figure', () => {
    const blog = presetDescription('overlap-blog', { size: '64MiB', streams: '8' });
    expect(blog).toContain('64 MiB of pinned floats');
    expect(blog).toContain('split over 8 streams');
    expect(blog).not.toMatch(/16 MiB|4 streams/);
    expect(presetDescription('overlap-blog', { streams: 1 })).toContain(
      'split over 1 stream issued',
    );
    // 24 layers × 16 MiB = 384 MiB of gradients in 2 MiB tensors: a 4 MiB bucket closes at 4 MiB
    // (96 buckets); a 25 MiB one at 26 MiB (14, then the last 20 MiB); 512 MiB never fills.
    const small = presetDescription('ddp-bucketing', { bucketMiB: 4 });
    expect(small).toContain('in 96 buckets of 4 MiB: a bucket closes once it holds 4 MiB');
    expect(small).not.toMatch(/25 MiB|26 MiB/);
    expect(presetDescription('ddp-bucketing', { bucketMiB: 512, devices: 1 })).toContain(
      'on one GPU, each layer giving 16 MiB of gradients. The gradients are all-reduced over the ' +
        'one GPU (a no-op) in one bucket of 384 MiB: a bucket closes once it holds 512 MiB',
    );
    expect(() => presetDescription('overlap-blog', { streams: 0 })).toThrow(PresetError);
  });

  it('is what the preset list says at the defaults', () => {
    for (const p of presets) {
      expect(presetDescription(p.name), p.name).toBe(p.description);
    }
    expect(presets.find((p) => p.name === 'ddp-bucketing')?.description).toContain(
      'on each of 2 GPUs, each layer giving 16 MiB of gradients. The gradients are all-reduced ' +
        'over the GPUs in 15 buckets of 26 MiB (the last 20 MiB): a bucket closes once it holds ' +
        "25 MiB, the last when the backward ends (PyTorch DDP's bucket_cap_mb is 25 by default)",
    );
  });

  it("goes into the blog workload's spec with the values it was built with", () => {
    expect(buildPreset('overlap-blog', { size: '32MiB' }).description).toContain(
      '32 MiB of pinned floats',
    );
  });
});

describe('workloadJsonSchema', () => {
  it('is a closed draft 2020-12 schema naming every op', () => {
    expect(workloadJsonSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(workloadJsonSchema.additionalProperties).toBe(false);
    const text = JSON.stringify(workloadJsonSchema);
    for (const op of [
      'copy',
      'kernel',
      'memset',
      'eventRecord',
      'streamWait',
      'graph',
      'graphLaunch',
      'repeat',
      'range',
      'malloc',
      'free',
      'hostFunc',
      'hostWork',
    ]) {
      expect(text, op).toContain(`"const":"${op}"`);
    }
  });
});
