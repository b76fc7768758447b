import { describe, expect, it } from 'vitest';
import { ApiError } from '../http/api-error.ts';
import { fromWorkerError, toWorkerError } from './protocol.ts';

describe('errors crossing from a worker', () => {
  it('keep an ApiError whole', () => {
    const back = fromWorkerError(toWorkerError(new ApiError(422, 'import-failed', 'bad', 'a.b')));
    expect(back).toBeInstanceOf(ApiError);
    expect(back).toMatchObject({ status: 422, code: 'import-failed', message: 'bad', path: 'a.b' });
  });

  it("keep a system error's code, so a full disk in a worker is still a full disk", () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), {
      code: 'ENOSPC',
    });
    const back = fromWorkerError(structuredClone(toWorkerError(full))) as NodeJS.ErrnoException;
    expect(back).not.toBeInstanceOf(ApiError);
    expect(back.code).toBe('ENOSPC');
    expect(back.message).toBe(full.message);
    expect((fromWorkerError(toWorkerError(new Error('plain'))) as NodeJS.ErrnoException).code).toBe(
      undefined,
    );
  });
});
