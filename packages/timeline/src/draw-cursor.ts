import { formatDurationNs } from '@streamscope/trace';
import { chrome } from './colors.ts';
import type { FrameInput } from './frame-input.ts';
import { pxPerNs } from './frame-input.ts';
import type { PaintSurface } from './paint-surface.ts';

/** Rough width of one character of the 10 px axis font, for the label boxes (no measureText). */
const axisCharPx = 6;

/**
 * A label box on the axis, centred on `centerPx` but kept inside the Gantt's columns so the
 * whole text shows at either edge.
 */
function axisLabel(
  surface: PaintSurface,
  input: FrameInput,
  text: string,
  centerPx: number,
  background: number,
): void {
  const widthPx = text.length * axisCharPx + 8;
  const minPx = input.gutterPx;
  const maxPx = input.widthPx - widthPx;
  const leftPx = Math.max(minPx, Math.min(maxPx, centerPx - widthPx / 2));
  const topPx = 2;
  const heightPx = input.axisHeightPx - 6;
  surface.fillRect(leftPx, topPx, widthPx, heightPx, background);
  surface.text(
    text,
    leftPx + widthPx / 2,
    topPx + heightPx / 2,
    chrome.cursorLabelText,
    'axis',
    'center',
  );
}

/** The marked range (`M`): shading over the rows, its edges, and its duration on the axis. */
export function drawMarkedRange(surface: PaintSurface, input: FrameInput): void {
  const mark = input.mark;
  if (mark === undefined) {
    return;
  }
  const { gutterPx, widthPx, axisHeightPx, heightPx, window } = input;
  const scale = pxPerNs(input);
  const x0 = gutterPx + (mark.startNs - window.startNs) * scale;
  const x1 = gutterPx + (mark.endNs - window.startNs) * scale;
  if (x1 < gutterPx || x0 > widthPx) {
    return;
  }
  surface.pushClip(gutterPx, 0, widthPx - gutterPx, heightPx);
  const left = Math.max(gutterPx, x0);
  const right = Math.min(widthPx, x1);
  surface.fillRect(
    left,
    axisHeightPx,
    Math.max(1, right - left),
    heightPx - axisHeightPx,
    chrome.markFill,
  );
  surface.line(x0, 0, x0, heightPx, chrome.markEdge, 1);
  surface.line(x1, 0, x1, heightPx, chrome.markEdge, 1);
  surface.popClip();
  axisLabel(
    surface,
    input,
    formatDurationNs(mark.endNs - mark.startNs),
    (left + right) / 2,
    chrome.markEdge,
  );
}

/** The time cursor: a line under the pointer and the time there on the axis. */
export function drawTimeCursor(surface: PaintSurface, input: FrameInput): void {
  const cursorNs = input.cursorNs;
  if (cursorNs === undefined) {
    return;
  }
  const { gutterPx, widthPx, heightPx, window } = input;
  const xPx = Math.round(gutterPx + (cursorNs - window.startNs) * pxPerNs(input)) + 0.5;
  if (xPx < gutterPx || xPx > widthPx) {
    return;
  }
  surface.line(xPx, 0, xPx, heightPx, chrome.cursor, 1);
  axisLabel(surface, input, formatDurationNs(cursorNs), xPx, chrome.cursorLabelBg);
}
