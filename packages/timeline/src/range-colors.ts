import { hexRgba } from './colors.ts';

/**
 * NVTX ranges take a light colour by name id (same name, same colour) so nesting reads as
 * bands; the dark text on them is what tells names apart, not hue alone.
 */
export const rangePalette: Uint32Array = Uint32Array.from(
  ['#C7DDF0', '#F6DDB0', '#C2E6D8', '#EBD0E0', '#E3E3C4', '#D5D0EB', '#F2C9B8', '#D0E4EE'].map(
    hexRgba,
  ),
);
