import process from 'node:process';

/** The environment the server reads, validated once at startup (STYLE.md B.7). */
export interface ServerEnv {
  /** A fixed access token for non-loopback serving; generated at start when absent. */
  readonly token?: string;
  /** Folder of the built web app; defaults to apps/web/dist beside this package. */
  readonly webDistDir?: string;
  /** The injection collector `profile` injects; defaults to native/build's (a bundled CLI names it). */
  readonly collectorPath?: string;
}

const tokenPattern = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * Reads STREAMSCOPE_TOKEN, STREAMSCOPE_WEB_DIST and STREAMSCOPE_COLLECTOR; throws with the
 * variable's name when invalid.
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
  };
}
