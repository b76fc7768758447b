import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  parsingProgress,
  progressFromServer,
  uploadingProgress,
} from './import-progress.ts';

describe('import progress', () => {
  it('fills the first half of the bar with the upload and the second with the parse', () => {
    // 300 of 1,000 bytes sent: 0.5 * 0.3 = 0.15 of the import.
    expect(uploadingProgress(300, 1000).fraction).toBeCloseTo(0.15);
    // 250 of 1,000 bytes parsed after the upload: 0.5 + 0.5 * 0.25 = 0.625.
    expect(parsingProgress(250, 1000, true)).toEqual({
      stage: 'parsing',
      fraction: 0.625,
      doneBytes: 250,
      totalBytes: 1000,
    });
    // A local parse has no upload: the parse is the whole bar.
    expect(parsingProgress(250, 1000, false).fraction).toBe(0.25);
  });

  it('reads the server phases into stages, and nothing from a finished import', () => {
    expect(
      progressFromServer({ uploadId: 'u', phase: 'receiving', receivedBytes: 10, totalBytes: 40 }),
    ).toMatchObject({ stage: 'uploading', fraction: 0.125 });
    expect(
      progressFromServer({ uploadId: 'u', phase: 'parsing', receivedBytes: 40, parsedBytes: 40 }),
    ).toMatchObject({ stage: 'parsing', fraction: 1, doneBytes: 40 });
    expect(
      progressFromServer({ uploadId: 'u', phase: 'parsing', receivedBytes: 40, parsedBytes: 40 }),
    ).not.toHaveProperty('table');
    expect(
      progressFromServer({
        uploadId: 'u',
        phase: 'parsing',
        receivedBytes: 40,
        parsedBytes: 40,
        table: 'kernels',
      }),
    ).toMatchObject({ stage: 'parsing', fraction: 1, table: 'kernels' });
    expect(
      progressFromServer({ uploadId: 'u', phase: 'storing', receivedBytes: 40 }),
    ).toMatchObject({ stage: 'storing', fraction: 1 });
    expect(progressFromServer({ uploadId: 'u', phase: 'done', receivedBytes: 40 })).toBeNull();
    expect(progressFromServer({ uploadId: 'u', phase: 'cancelled', receivedBytes: 4 })).toBeNull();
    expect(progressFromServer('not an object')).toBeNull();
  });

  it('holds the bar at the upload’s end while nsys exports a report, then counts the export’s bytes', () => {
    expect(
      progressFromServer({ uploadId: 'u', phase: 'exporting', receivedBytes: 40, totalBytes: 40 }),
    ).toEqual({ stage: 'exporting', fraction: 0.5, doneBytes: 40, totalBytes: 40 });
    // 150 of the export's 600 bytes parsed: 0.5 + 0.5 * 0.25 = 0.625, not 150 of the 40 sent.
    expect(
      progressFromServer({
        uploadId: 'u',
        phase: 'parsing',
        receivedBytes: 40,
        parsedBytes: 150,
        parseTotalBytes: 600,
      }),
    ).toMatchObject({ stage: 'parsing', fraction: 0.625, doneBytes: 150, totalBytes: 600 });
  });

  it('never reports a fraction outside [0, 1]', () => {
    expect(parsingProgress(5000, 1000, true).fraction).toBe(1);
    expect(uploadingProgress(10, 0).fraction).toBe(0);
  });

  it('writes byte counts in decimal units', () => {
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(53_829_903)).toBe('53.8 MB');
    expect(formatBytes(2_500_000_000)).toBe('2.5 GB');
  });
});
