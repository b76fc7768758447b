import type { Request } from 'express';
import { isValidId } from '../storage/trace-store.ts';
import type { NameQuery } from '../workers/name-match.ts';
import { nameTest } from '../workers/name-match.ts';
import { ApiError, badRequest } from './api-error.ts';

/** The `:id` path parameter, checked before it touches a file name. */
export function idParam(req: Request): string {
  const id = req.params['id'];
  if (typeof id !== 'string' || !isValidId(id)) {
    throw new ApiError(400, 'bad-id', 'ids are 1 to 64 characters of [A-Za-z0-9_-]', 'id');
  }
  return id;
}

/** A single query string value, or undefined; repeated parameters are refused. */
export function queryString(req: Request, name: string): string | undefined {
  const value: unknown = req.query[name];
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'string') {
    throw badRequest(`query parameter '${name}' must be given once`, name);
  }
  return value;
}

/** A finite number query parameter (ns may be fractional after a zoom). */
export function queryNumber(req: Request, name: string): number | undefined {
  const raw = queryString(req, name);
  if (raw === undefined) {
    return undefined;
  }
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) {
    throw badRequest(`query parameter '${name}' must be a number, got '${raw}'`, name);
  }
  return value;
}

/** A number query parameter that must be there. */
export function requiredNumber(req: Request, name: string): number {
  const value = queryNumber(req, name);
  if (value === undefined) {
    throw badRequest(`query parameter '${name}' is required`, name);
  }
  return value;
}

/** Case-insensitive: a substring, or with regex=1 a regular expression (checked here). */
export function nameQuery(q: string, regex: string | undefined): NameQuery {
  if (regex === undefined || regex === '0') {
    return { q, regex: false };
  }
  if (regex !== '1') {
    throw badRequest(`regex must be '0' or '1', got '${regex}'`, 'regex');
  }
  try {
    nameTest({ q, regex: true });
  } catch (error) {
    throw badRequest(`q is not a valid regular expression: ${(error as Error).message}`, 'q');
  }
  return { q, regex: true };
}

/** A JSON object body; anything else is a precise error. */
export function jsonObjectBody(req: Request): Record<string, unknown> {
  if (req.is('application/json') !== 'application/json') {
    throw new ApiError(415, 'unsupported-media-type', 'send the body as application/json');
  }
  const body: unknown = req.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('the body must be a JSON object', '$');
  }
  return body as Record<string, unknown>;
}
