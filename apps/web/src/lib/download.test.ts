import { describe, expect, it } from 'vitest';
import { exportFileName, safeFileName, traceBaseName } from './download.ts';

describe('export file names', () => {
  it("drop the input file's extensions and add the window and one extension", () => {
    expect(exportFileName('resnet.pt.trace.json', '0.00-2.26ms', 'png')).toBe(
      'resnet-0.00-2.26ms.png',
    );
    expect(exportFileName('train.sqlite', '161-162ms', 'svg')).toBe('train-161-162ms.svg');
    expect(exportFileName('run 3: overlap (sim)', '0.00-4.10ms', 'png')).toBe(
      'run-3-overlap-sim-0.00-4.10ms.png',
    );
  });

  it('keep a name that is nothing but an extension, and dots inside a name', () => {
    expect(traceBaseName('step.1.json.gz')).toBe('step.1');
    expect(traceBaseName('.json')).toBe('.json');
    expect(safeFileName('', 'svg')).toBe('trace.svg');
  });
});
