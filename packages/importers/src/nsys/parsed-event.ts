import type { NsysRecord } from './nsys-record.ts';
import { F, fieldByHash, fieldLength, hashAscii } from './nsys-record.ts';

/** A JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Copies the fields the importer reads from a JSON.parse'd event into the record (the path for
 * lines the fast scanner hands over): objects down to the sub-object's children, booleans as
 * 1 and 0, integer strings as numbers (or exact decimal text beyond 2^53).
 */
export function fillRecord(rec: NsysRecord, value: Record<string, unknown>, depth: number): void {
  for (const key in value) {
    const v = value[key];
    let field = fieldByHash.get(hashAscii(key));
    if (field !== undefined && fieldLength[field] !== key.length) {
      field = undefined;
    }
    if (isObject(v)) {
      if (field !== undefined && depth > 0) {
        rec.sub = field;
      }
      if (depth < 3) {
        fillRecord(rec, v, depth + 1);
      }
      continue;
    }
    if (field === undefined || (field === F.Type && depth > 1)) {
      continue;
    }
    if (typeof v === 'number') {
      rec.setNumber(field, v);
    } else if (typeof v === 'string') {
      if (/^-?\d+$/.test(v)) {
        const n = Number(v);
        if (Number.isSafeInteger(n)) {
          rec.setNumber(field, n);
        } else {
          rec.setBig(field, v);
        }
      } else {
        rec.setText(field, v);
      }
    } else if (typeof v === 'boolean') {
      rec.setNumber(field, v ? 1 : 0);
    }
  }
}
