import type { Rgba } from './colors.ts';

/** A colour in CIELAB (D65 white), L* 0..100. */
export interface Lab {
  readonly l: number;
  readonly a: number;
  readonly b: number;
}

export type Deficiency = 'normal' | 'protanopia' | 'deuteranopia' | 'tritanopia';

// Machado, Oliveira & Fernandes (2009), "A Physiologically-based Model for Simulation of Color
// Vision Deficiency", severity 1.0 (dichromacy). Row-major 3×3, applied to linear RGB.
const machado: Record<Exclude<Deficiency, 'normal'>, readonly number[]> = {
  protanopia: [
    0.152286, 1.052583, -0.204868, 0.114503, 0.786281, 0.099216, -0.003882, -0.048116, 1.051998,
  ],
  deuteranopia: [
    0.367322, 0.860646, -0.227968, 0.280085, 0.672501, 0.047413, -0.01182, 0.04294, 0.968881,
  ],
  tritanopia: [
    1.255528, -0.076749, -0.178779, -0.078411, 0.930809, 0.147602, 0.004733, 0.691367, 0.3039,
  ],
};

/** sRGB channel 0..255 → linear 0..1 (IEC 61966-2-1). */
function toLinear(channel: number): number {
  const c = channel / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** Opaque `color` over `background` (straight alpha), as the canvas composites a gap shade. */
export function composite(color: Rgba, background: Rgba): [number, number, number] {
  const alpha = (color & 0xff) / 255;
  const out: [number, number, number] = [0, 0, 0];
  for (let i = 0; i < 3; i++) {
    const shift = 24 - 8 * i;
    const fg = (color >>> shift) & 0xff;
    const bg = (background >>> shift) & 0xff;
    out[i] = fg * alpha + bg * (1 - alpha);
  }
  return out;
}

/**
 * The CIELAB colour a viewer with `deficiency` sees for the sRGB colour (0..255 per channel):
 * the Machado matrix on linear RGB (clamped to the gamut), then sRGB → XYZ → Lab.
 */
export function perceivedLab(rgb: readonly [number, number, number], deficiency: Deficiency): Lab {
  let r = toLinear(rgb[0]);
  let g = toLinear(rgb[1]);
  let b = toLinear(rgb[2]);
  if (deficiency !== 'normal') {
    const m = machado[deficiency];
    const clamp = (v: number): number => Math.min(1, Math.max(0, v));
    [r, g, b] = [
      clamp(m[0]! * r + m[1]! * g + m[2]! * b),
      clamp(m[3]! * r + m[4]! * g + m[5]! * b),
      clamp(m[6]! * r + m[7]! * g + m[8]! * b),
    ];
  }
  // Linear sRGB → XYZ (D65), then relative to the D65 white.
  const x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
  const y = 0.2126729 * r + 0.7151522 * g + 0.072175 * b;
  const z = (0.0193339 * r + 0.119192 * g + 0.9503041 * b) / 1.08883;
  const f = (t: number): number => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  const fx = f(x);
  const fy = f(y);
  const fz = f(z);
  return { l: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz) };
}

const deg = Math.PI / 180;

/** CIEDE2000 colour difference (Sharma, Wu & Dalal 2005), kL = kC = kH = 1. */
export function ciede2000(p: Lab, q: Lab): number {
  const c1 = Math.hypot(p.a, p.b);
  const c2 = Math.hypot(q.a, q.b);
  const cMean = (c1 + c2) / 2;
  const c7 = cMean ** 7;
  const g = 0.5 * (1 - Math.sqrt(c7 / (c7 + 25 ** 7)));
  const a1 = (1 + g) * p.a;
  const a2 = (1 + g) * q.a;
  const c1p = Math.hypot(a1, p.b);
  const c2p = Math.hypot(a2, q.b);
  const hue = (b: number, a: number): number => {
    if (a === 0 && b === 0) {
      return 0;
    }
    const h = Math.atan2(b, a) / deg;
    return h < 0 ? h + 360 : h;
  };
  const h1 = hue(p.b, a1);
  const h2 = hue(q.b, a2);
  const dL = q.l - p.l;
  const dC = c2p - c1p;
  let dh = 0;
  if (c1p * c2p !== 0) {
    dh = h2 - h1;
    if (dh > 180) {
      dh -= 360;
    } else if (dh < -180) {
      dh += 360;
    }
  }
  const dH = 2 * Math.sqrt(c1p * c2p) * Math.sin((dh / 2) * deg);
  const lMean = (p.l + q.l) / 2;
  const cpMean = (c1p + c2p) / 2;
  let hMean = h1 + h2;
  if (c1p * c2p !== 0) {
    if (Math.abs(h1 - h2) <= 180) {
      hMean = (h1 + h2) / 2;
    } else {
      hMean = h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2;
    }
  }
  const t =
    1 -
    0.17 * Math.cos((hMean - 30) * deg) +
    0.24 * Math.cos(2 * hMean * deg) +
    0.32 * Math.cos((3 * hMean + 6) * deg) -
    0.2 * Math.cos((4 * hMean - 63) * deg);
  const dTheta = 30 * Math.exp(-(((hMean - 275) / 25) ** 2));
  const cp7 = cpMean ** 7;
  const rC = 2 * Math.sqrt(cp7 / (cp7 + 25 ** 7));
  const l50 = (lMean - 50) ** 2;
  const sL = 1 + (0.015 * l50) / Math.sqrt(20 + l50);
  const sC = 1 + 0.045 * cpMean;
  const sH = 1 + 0.015 * cpMean * t;
  const rT = -Math.sin(2 * dTheta * deg) * rC;
  const tl = dL / sL;
  const tc = dC / sC;
  const th = dH / sH;
  return Math.sqrt(tl * tl + tc * tc + th * th + rT * tc * th);
}

/** ΔE2000 between two sRGB colours as a viewer with `deficiency` sees them. */
export function perceivedDeltaE(
  x: readonly [number, number, number],
  y: readonly [number, number, number],
  deficiency: Deficiency,
): number {
  return ciede2000(perceivedLab(x, deficiency), perceivedLab(y, deficiency));
}
