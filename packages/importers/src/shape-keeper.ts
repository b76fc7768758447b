const kept: object[] = [];

/**
 * Keeps one instance of a hot class alive for the module's lifetime. V8 frees a class's hidden
 * class (map) once no instance of it is left and throws away the code optimized against that
 * map, so every import after a garbage collection would run its byte loops unoptimized and
 * compile them again (tens of ms of compiler time per import, on a file of 25 MB). While one
 * instance lives the map stays, and the next import reuses the optimized code.
 */
export function keepShape(instance: object): void {
  kept.push(instance);
}
