import { main } from './main.ts';

export interface CliResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs `streamscope ARGS…` in this process, capturing what it prints (for tests). */
export async function runCli(args: readonly string[]): Promise<CliResult> {
  let out = '';
  let err = '';
  const code = await main(args, {
    out: (t) => {
      out += `${t}\n`;
    },
    err: (t) => {
      err += `${t}\n`;
    },
  });
  return { code, out, err };
}
