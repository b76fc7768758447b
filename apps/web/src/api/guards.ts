/** Small guards for reading JSON from the server without `any`. */
export type JsonObject = Readonly<Record<string, unknown>>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(o: JsonObject, key: string, fallback = ''): string {
  const v = o[key];
  return typeof v === 'string' ? v : fallback;
}

export function num(o: JsonObject, key: string, fallback = 0): number {
  const v = o[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

export function optNum(o: JsonObject, key: string): number | undefined {
  const v = o[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function optStr(o: JsonObject, key: string): string | undefined {
  const v = o[key];
  return typeof v === 'string' ? v : undefined;
}

export function arr(o: JsonObject, key: string): readonly unknown[] {
  const v = o[key];
  return Array.isArray(v) ? (v as readonly unknown[]) : [];
}

export function objects(values: readonly unknown[]): JsonObject[] {
  return values.filter(isObject);
}
