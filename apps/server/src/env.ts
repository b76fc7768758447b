import process from 'node:process';

/** The environment the server reads, validated once at startup (STYLE.md B.7). */
export interface ServerEnv {
  /** A fixed access token for non-loopback serving; generated at start when absent. */
  readonly token?: string;
  /** Folder of the built web app; defaults to apps/web/dist beside this package. */
  readonly webDistDir?: string;
  /** The injection collector `profile` injects; defaults to native/build's (a bundled CLI names it). */
  readonly collectorPath?: string;
  /** NSYS: the nsys that exports a dropped .nsys-rep report (after `--nsys`, before PATH). */
  readonly nsysPath?: string;
  /** PATH, where nsys is looked for after NSYS. */
  readonly searchPath?: string;
}

const tokenPattern = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * Reads STREAMSCOPE_TOKEN, STREAMSCOPE_WEB_DIST, STREAMSCOPE_COLLECTOR, NSYS and PATH; throws
 * with the variable's name when invalid.
 */
export function readEnv(source: NodeJS.ProcessEnv = process.env): ServerEnv {
  const token = source['STREAMSCOPE_TOKEN'];
  const webDistDir = source['STREAMSCOPE_WEB_DIST'];
  const collectorPath = source['STREAMSCOPE_COLLECTOR'];
  if (token !== undefined && token !== '' && !tokenPattern.test(token)) {
    throw new Error('STREAMSCOPE_TOKEN must be 16 to 128 characters of [A-Za-z0-9_-]');
  }
  return {
    ...(token !== undefined && token !== '' ? { token } : {}),
    ...(webDistDir !== undefined && webDistDir !== '' ? { webDistDir } : {}),
    ...(collectorPath !== undefined && collectorPath !== '' ? { collectorPath } : {}),
    ...readNsysEnv(source),
  };
}

/**
 * NSYS and PATH alone: where a command that exports a report looks for nsys (`import` has no
 * use for the server's settings, nor a reason to refuse their values).
 */
export function readNsysEnv(
  source: NodeJS.ProcessEnv = process.env,
): Pick<ServerEnv, 'nsysPath' | 'searchPath'> {
  const nsysPath = source['NSYS'];
  const searchPath = source['PATH'];
  return {
    ...(nsysPath !== undefined && nsysPath !== '' ? { nsysPath } : {}),
    ...(searchPath !== undefined ? { searchPath } : {}),
  };
}

/** Where nsys is looked for from the environment, as withNsysExport takes it. */
export function nsysLookupOf(env: Pick<ServerEnv, 'nsysPath' | 'searchPath'>): {
  readonly envPath?: string;
  readonly searchPath?: string;
} {
  return {
    ...(env.nsysPath === undefined ? {} : { envPath: env.nsysPath }),
    ...(env.searchPath === undefined ? {} : { searchPath: env.searchPath }),
  };
}
