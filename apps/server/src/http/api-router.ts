import type { Router } from 'express';
import express from 'express';

/**
 * Every router of this server: paths match as spelled (`/api/traces`, never `/API/traces` or
 * `/api/traces/`), so a path the guard reads and a path a route answers cannot differ.
 */
export function strictRouter(): Router {
  return express.Router({ caseSensitive: true, strict: true });
}
