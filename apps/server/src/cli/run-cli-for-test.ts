import { main } from './main.ts';

export interface CliResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/**
 * Runs `streamscope ARGS…` in this process, capturing what it prints (for tests). With `raw`,
 * the CLI gets a raw stream writer too (as on a terminal) and `out` holds both, in order.
 */
export async function runCli(args: readonly string[], raw = false): Promise<CliResult> {
  let out = '';
  let err = '';
  const code = await main(args, {
    out: (t) => {
      out += `${t}\n`;
    },
    err: (t) => {
      err += `${t}\n`;
    },
    ...(raw
      ? {
          write: (chunk: string) => {
            out += chunk;
            return Promise.resolve();
          },
        }
      : {}),
  });
  return { code, out, err };
}
