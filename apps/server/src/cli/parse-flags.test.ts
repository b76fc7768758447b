import { describe, expect, it } from 'vitest';
import { UsageError } from './command.ts';
import { intValue, parseFlags } from './parse-flags.ts';

describe('parseFlags', () => {
  const spec = { values: ['out', 'port'], switches: ['summary'], repeatable: ['set'] };

  it('reads --flag value, --flag=value, switches and positionals', () => {
    const f = parseFlags(['a.json', '--out', 'x.sstrace', '--summary', '--port=9'], spec);
    expect(f.positional).toEqual(['a.json']);
    expect(f.values.get('out')).toEqual(['x.sstrace']);
    expect(f.values.get('port')).toEqual(['9']);
    expect(f.switches.has('summary')).toBe(true);
  });

  it('collects repeatable flags', () => {
    const f = parseFlags(['--set', 'a=1', '--set=b=2'], spec);
    expect(f.values.get('set')).toEqual(['a=1', 'b=2']);
  });

  it('rejects unknown flags, missing values and repeats of single flags', () => {
    expect(() => parseFlags(['--bogus'], spec)).toThrow(new UsageError('unknown flag --bogus'));
    expect(() => parseFlags(['--out'], spec)).toThrow('--out needs a value');
    expect(() => parseFlags(['--out', '--summary'], spec)).toThrow('--out needs a value');
    expect(() => parseFlags(['--out', 'a', '--out', 'b'], spec)).toThrow('given more than once');
    expect(() => parseFlags(['--summary=1'], spec)).toThrow('takes no value');
  });

  it('validates integer flags with their range', () => {
    expect(intValue(parseFlags(['--port', '8080'], spec), 'port', 1, 65535)).toBe(8080);
    expect(() => intValue(parseFlags(['--port', '0'], spec), 'port', 1, 65535)).toThrow(
      "--port must be an integer in [1, 65535], got '0'",
    );
  });
});
