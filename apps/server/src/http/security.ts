import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from './api-error.ts';

export const tokenCookie = 'streamscope_token';

export interface SecurityPolicy {
  /** Set when serving beyond loopback: every API call and the live channel must carry it. */
  readonly token?: string;
  /** Serving on a loopback address: Host must name this machine (defeats DNS rebinding). */
  readonly loopbackOnly: boolean;
}

/**
 * Loopback serving needs no token (but checks Host); any other address requires one: the given
 * token, or 24 random bytes generated at start.
 */
export function securityPolicyFor(host: string, token?: string): SecurityPolicy {
  const loopbackOnly = isLoopbackHost(host);
  const required = token ?? (loopbackOnly ? undefined : randomBytes(24).toString('base64url'));
  return required === undefined ? { loopbackOnly } : { loopbackOnly, token: required };
}

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopbackHost(host: string): boolean {
  return loopbackHosts.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function hostnameOf(hostHeader: string | undefined): string | undefined {
  if (hostHeader === undefined) {
    return undefined;
  }
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return undefined;
  }
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieToken(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === tokenCookie) {
      return rest.join('=');
    }
  }
  return undefined;
}

/** The token a request carries: Authorization bearer, the cookie, or `?token=`. */
function requestToken(request: IncomingMessage): string | undefined {
  const auth = request.headers.authorization;
  if (auth?.startsWith('Bearer ') === true) {
    return auth.slice('Bearer '.length);
  }
  const fromCookie = cookieToken(request.headers.cookie);
  if (fromCookie !== undefined) {
    return fromCookie;
  }
  return new URL(request.url ?? '/', 'http://localhost').searchParams.get('token') ?? undefined;
}

/** Host check for loopback serving. */
export function checkHost(policy: SecurityPolicy, request: IncomingMessage): ApiError | undefined {
  if (!policy.loopbackOnly) {
    return undefined;
  }
  const host = hostnameOf(request.headers.host);
  if (host === undefined || !isLoopbackHost(host)) {
    return new ApiError(
      403,
      'bad-host',
      `Host '${request.headers.host ?? ''}' is not this machine's loopback name`,
    );
  }
  return undefined;
}

/** A browser's cross-site request: its Origin names another host than the one it talks to. */
export function checkOrigin(request: IncomingMessage): ApiError | undefined {
  const origin = request.headers.origin;
  if (origin === undefined) {
    return undefined; // not a browser, or a same-origin GET
  }
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return new ApiError(403, 'bad-origin', `Origin '${origin}' is not a URL`);
  }
  if (originHost !== request.headers.host) {
    return new ApiError(403, 'bad-origin', `Origin '${origin}' may not use this server`);
  }
  return undefined;
}

export function checkToken(policy: SecurityPolicy, request: IncomingMessage): ApiError | undefined {
  if (policy.token === undefined) {
    return undefined;
  }
  const given = requestToken(request);
  if (given === undefined || !sameToken(given, policy.token)) {
    return new ApiError(
      401,
      'unauthorized',
      'a valid access token is required (the URL printed at start carries it)',
    );
  }
  return undefined;
}

/** The live channel's checks: host, origin (always, browsers send it on ws) and token. */
export function authorizeUpgrade(
  policy: SecurityPolicy,
  request: IncomingMessage,
): ApiError | undefined {
  return checkHost(policy, request) ?? checkOrigin(request) ?? checkToken(policy, request);
}

/** Headers on every response: no sniffing, no framing, no referrer leaks. */
export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  next();
}

/** Methods a browser may send cross-site without a preflight that changes nothing. */
const readMethods = new Set(['GET', 'HEAD']);

/** The one request answered without the token: the health probe, spelled exactly so. */
function isOpenRequest(req: Request): boolean {
  return readMethods.has(req.method) && req.path === '/api/health';
}

/**
 * Every request, whatever its path or spelling: Host on loopback serving, Origin on anything but
 * GET/HEAD, and the token (when set) on everything but the health probe: the API, the live
 * channel (authorizeUpgrade) and the web app alike. Nothing is decided by a path prefix, so no
 * spelling of a path (`/API/…`, `/api//…`, `/%61pi/…`) can walk around a check.
 */
export function guard(policy: SecurityPolicy) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const hostProblem = checkHost(policy, req);
    if (hostProblem !== undefined) {
      next(hostProblem);
      return;
    }
    if (!readMethods.has(req.method)) {
      const originProblem = checkOrigin(req);
      if (originProblem !== undefined) {
        next(originProblem);
        return;
      }
    }
    if (policy.token === undefined || isOpenRequest(req)) {
      next();
      return;
    }
    if (req.method === 'GET') {
      // The printed URL carries ?token=; trade it for an HttpOnly cookie and drop it from the URL.
      const url = new URL(req.originalUrl, 'http://localhost');
      const given = url.searchParams.get('token');
      if (given !== null && sameToken(given, policy.token) && !url.pathname.startsWith('/api/')) {
        res.setHeader('Set-Cookie', `${tokenCookie}=${given}; HttpOnly; SameSite=Strict; Path=/`);
        url.searchParams.delete('token');
        res.redirect(303, `${url.pathname}${url.search}`);
        return;
      }
    }
    next(checkToken(policy, req));
  };
}
