import { describe, expect, it } from 'vitest';
import type { Micros } from './micros.ts';
import { MicrosRead, readMicros } from './micros.ts';

function read(text: string): { read: MicrosRead; us: number; ns: number; negative: boolean } {
  const out: Micros = { us: -1, ns: -1, negative: false };
  const bytes = new TextEncoder().encode(text);
  const result = readMicros(bytes, 0, bytes.length, out);
  return { read: result, us: out.us, ns: out.ns, negative: out.negative };
}

describe('readMicros', () => {
  it('splits µs since 1970 at the decimal point, keeping the ns a double would lose', () => {
    expect(read('1623142623460111.123')).toMatchObject({
      read: MicrosRead.Ok,
      us: 1623142623460111,
      ns: 123,
    });
    // Through a double the same text is 1623142623460111.0 or .25: the 123 ns are gone.
    expect(Math.round(Number('1623142623460111.123') * 1000) % 1000).not.toBe(123);
  });

  it('reads integers, fewer decimals and exponents', () => {
    expect(read('110')).toMatchObject({ us: 110, ns: 0 });
    expect(read('1.5')).toMatchObject({ us: 1, ns: 500 });
    expect(read('0.07')).toMatchObject({ us: 0, ns: 70 });
    expect(read('1.5e3')).toMatchObject({ us: 1500, ns: 0 });
    expect(read('1.623142623460111123e15')).toMatchObject({ us: 1623142623460111, ns: 123 });
    expect(read('12E-3')).toMatchObject({ us: 0, ns: 12 });
  });

  it('rounds past the third decimal half up, carrying into the µs', () => {
    expect(read('0.0004')).toMatchObject({ us: 0, ns: 0 });
    expect(read('0.0005')).toMatchObject({ us: 0, ns: 1 });
    expect(read('12.9996')).toMatchObject({ us: 13, ns: 0 });
    // 2.5e-3 µs = 2.5 ns → 3 ns.
    expect(read('25e-4')).toMatchObject({ us: 0, ns: 3 });
  });

  it('says a value is negative and leaves the sign to the caller', () => {
    expect(read('-5.25')).toMatchObject({ read: MicrosRead.Ok, us: 5, ns: 250, negative: true });
  });

  it('refuses what is not a decimal number', () => {
    for (const text of ['', 'abc', '1.', '.5', '1e', '--1', '1x', '1.5.5', '0x10']) {
      expect(read(text).read, text).toBe(MicrosRead.NotANumber);
    }
  });

  it('refuses whole µs at or past 2^53, where a double is no longer exact', () => {
    expect(read('9007199254740991').read).toBe(MicrosRead.Ok);
    expect(read('9007199254740992').read).toBe(MicrosRead.TooLarge);
    expect(read('1e400').read).toBe(MicrosRead.TooLarge);
  });
});
