import { describe, expect, it } from 'vitest';
import { main } from './main.ts';

async function cli(...argv: string[]): Promise<{ status: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const status = await main(argv, {
    out: (t) => (out += `${t}\n`),
    err: (t) => (err += `${t}\n`),
  });
  return { status, out, err };
}

describe('streamscope CLI', () => {
  it('lists every subcommand in --help and exits 0', async () => {
    const { status, out } = await cli('--help');
    expect(status).toBe(0);
    for (const name of ['serve', 'run', 'probe', 'calibrate', 'import', 'analyze', 'export']) {
      expect(out).toMatch(new RegExp(`^  ${name} `, 'm'));
    }
  });

  it('exits 2 with the usage for an unknown command', async () => {
    const { status, err } = await cli('frobnicate');
    expect(status).toBe(2);
    expect(err).toContain("unknown command 'frobnicate'");
    expect(err).toContain('usage: pnpm streamscope <command>');
  });

  it('exits 2 with the usage when no command is given', async () => {
    const { status, out } = await cli();
    expect(status).toBe(2);
    expect(out).toContain('usage:');
  });

  it("prints a command's usage for COMMAND --help", async () => {
    const { status, out } = await cli('import', '--help');
    expect(status).toBe(0);
    expect(out).toContain('usage: pnpm streamscope import FILE');
  });
});
