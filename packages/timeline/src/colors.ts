import { OpKind, opKindCount } from '@streamscope/trace';

/** A colour packed as 0xRRGGBBAA (the renderer's only colour type). */
export type Rgba = number;

/** Packs 8-bit channels into 0xRRGGBBAA. `>>> 0` keeps it an unsigned 32-bit number. */
export function rgba(r: number, g: number, b: number, a = 255): Rgba {
  return (((r & 0xff) << 24) | ((g & 0xff) << 16) | ((b & 0xff) << 8) | (a & 0xff)) >>> 0;
}

/** Parses '#rrggbb' into an opaque Rgba. */
export function hexRgba(hex: string): Rgba {
  const value = Number.parseInt(hex.replace('#', ''), 16);
  return ((value << 8) | 0xff) >>> 0;
}

export function withAlpha(color: Rgba, alpha: number): Rgba {
  return ((color & 0xffffff00) | (Math.round(Math.min(1, Math.max(0, alpha)) * 255) & 0xff)) >>> 0;
}

export function alphaOf(color: Rgba): number {
  return (color & 0xff) / 255;
}

/** CSS text for a colour: `rgba(r,g,b,a)`. */
export function cssColor(color: Rgba): string {
  const r = color >>> 24;
  const g = (color >>> 16) & 0xff;
  const b = (color >>> 8) & 0xff;
  const a = Math.round(((color & 0xff) / 255) * 1000) / 1000;
  return `rgba(${r},${g},${b},${a})`;
}

/** Black or white, whichever reads better on `background` (relative luminance, sRGB weights). */
export function textColorOn(background: Rgba): Rgba {
  const r = background >>> 24;
  const g = (background >>> 16) & 0xff;
  const b = (background >>> 8) & 0xff;
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luminance > 140 ? black : white;
}

const black = hexRgba('#000000');
const white = hexRgba('#ffffff');

/** One legend line: what a colour means and which op kinds wear it. */
export interface LegendEntry {
  readonly id: string;
  readonly label: string;
  readonly color: Rgba;
  readonly css: string;
  readonly kinds: readonly OpKind[];
}

// Okabe–Ito's eight colours stay distinct under the common colour-vision deficiencies; kinds
// that share a role share a colour (all waits and syncs are one grey) so the legend stays short.
// The colours added to them were picked so every pair stays at least 10 CIEDE2000 apart under
// protanopia, deuteranopia and tritanopia as well (color-vision.test.ts).
const okabeIto = {
  orange: '#E69F00',
  skyBlue: '#56B4E9',
  bluishGreen: '#009E73',
  yellow: '#F0E442',
  blue: '#0072B2',
  vermillion: '#D55E00',
  reddishPurple: '#CC79A7',
  black: '#000000',
} as const;

const legendSpec: readonly { id: string; label: string; hex: string; kinds: OpKind[] }[] = [
  { id: 'kernel', label: 'Kernel', hex: okabeIto.blue, kinds: [OpKind.Kernel] },
  { id: 'copy-htod', label: 'Copy H→D', hex: okabeIto.orange, kinds: [OpKind.CopyHtoD] },
  { id: 'copy-dtoh', label: 'Copy D→H', hex: okabeIto.vermillion, kinds: [OpKind.CopyDtoH] },
  {
    id: 'copy-device',
    label: 'Copy D→D / P2P / H→H',
    hex: okabeIto.reddishPurple,
    kinds: [OpKind.CopyDtoD, OpKind.CopyPtoP, OpKind.CopyHtoH],
  },
  { id: 'memset', label: 'Memset', hex: okabeIto.bluishGreen, kinds: [OpKind.Memset] },
  { id: 'event', label: 'Event record', hex: okabeIto.skyBlue, kinds: [OpKind.EventRecord] },
  {
    id: 'sync',
    label: 'Wait / synchronize',
    hex: '#5F5F5F',
    kinds: [OpKind.StreamWait, OpKind.StreamSync, OpKind.EventSync, OpKind.DeviceSync],
  },
  { id: 'host-func', label: 'Host function', hex: okabeIto.yellow, kinds: [OpKind.HostFunc] },
  { id: 'graph', label: 'Graph launch', hex: '#1B3F73', kinds: [OpKind.GraphLaunch] },
  { id: 'memory', label: 'Alloc / free', hex: '#3D3D3D', kinds: [OpKind.Alloc, OpKind.Free] },
  { id: 'api', label: 'API call', hex: '#A6BDD0', kinds: [OpKind.ApiCall] },
  { id: 'host-work', label: 'Host work', hex: '#EAEAEA', kinds: [OpKind.HostWork] },
];

/** The op-kind legend, in display order. */
export const opLegend: readonly LegendEntry[] = legendSpec.map((entry) => {
  const color = hexRgba(entry.hex);
  return { id: entry.id, label: entry.label, color, css: cssColor(color), kinds: entry.kinds };
});

/** Colour of each op kind, indexed by OpKind (unknown kinds draw black). */
export const kindColors: Uint32Array = (() => {
  const colors = new Uint32Array(opKindCount + 1).fill(hexRgba(okabeIto.black));
  for (const entry of opLegend) {
    for (const kind of entry.kinds) {
      colors[kind] = entry.color;
    }
  }
  return colors;
})();

export function colorOfKind(kind: number): Rgba {
  return kindColors[kind] ?? kindColors[opKindCount]!;
}

/** Fixed chrome colours, in one place so the SVG and canvas exports match. */
export const chrome = {
  background: hexRgba('#FFFFFF'),
  gutter: hexRgba('#F4F5F7'),
  headerBand: hexRgba('#E8EBF0'),
  rowStripe: hexRgba('#FAFBFC'),
  rowLine: hexRgba('#E1E4E8'),
  text: hexRgba('#1F2328'),
  mutedText: hexRgba('#59636E'),
  axisLine: hexRgba('#8C959F'),
  gridLine: rgba(140, 149, 159, 48),
  selection: hexRgba('#000000'),
  searchMatchEdge: hexRgba('#E69F00'),
  currentMatch: hexRgba('#D55E00'),
  areaFill: rgba(0, 114, 178, 40),
  areaEdge: rgba(0, 114, 178, 200),
  flowEventWait: hexRgba('#D55E00'),
  flowApiToGpu: hexRgba('#000000'),
  flowGraph: hexRgba('#CC79A7'),
  pinnedDivider: hexRgba('#8C959F'),
  cursor: hexRgba('#1F2328'),
  cursorLabelBg: hexRgba('#1F2328'),
  cursorLabelText: hexRgba('#FFFFFF'),
  markFill: rgba(204, 121, 167, 40),
  markEdge: hexRgba('#A8457F'),
} as const;
