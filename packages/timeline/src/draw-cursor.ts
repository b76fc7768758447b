import { formatDurationNs } from '@streamscope/trace';
import { chrome } from './colors.ts';
import type { FrameInput } from './frame-input.ts';
import { pxPerNs } from './frame-input.ts';
import type { PaintSurface } from './paint-surface.ts';

/** Rough width of one character of the 10 px axis font, for the label boxes (no measureText). */
const axisCharPx = 6;

/** The horizontal extent [left, right) of a label box on the axis (see `axisLabel`). */
function labelBoxPx(input: FrameInput, text: string, centerPx: number): [number, number] {
  const widthPx = text.length * axisCharPx + 8;
  const leftPx = Math.max(
    input.gutterPx,
    Math.min(input.widthPx - widthPx, centerPx - widthPx / 2),
  );
  return [leftPx, leftPx + widthPx];
}

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
  const [leftPx, rightPx] = labelBoxPx(input, text, centerPx);
  const widthPx = rightPx - leftPx;
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
  const xPx = cursorXPx(input);
  if (xPx === null) {
    return;
  }
  surface.line(xPx, 0, xPx, input.heightPx, chrome.cursor, 1);
  axisLabel(surface, input, formatDurationNs(cursorNs), xPx, chrome.cursorLabelBg);
}

/** Where the cursor line falls on screen, or null when it is off the Gantt's columns. */
function cursorXPx(input: FrameInput): number | null {
  if (input.cursorNs === undefined) {
    return null;
  }
  const { gutterPx, widthPx, window } = input;
  const xPx = Math.round(gutterPx + (input.cursorNs - window.startNs) * pxPerNs(input)) + 0.5;
  return xPx < gutterPx || xPx > widthPx ? null : xPx;
}

/**
 * The boxes the marked range's and the cursor's labels will cover on the axis, so the axis leaves
 * out the tick labels under them instead of showing a label cut in half at a box's edge.
 */
export function overlayLabelBoxesPx(input: FrameInput): [number, number][] {
  const boxes: [number, number][] = [];
  const mark = input.mark;
  if (mark !== undefined) {
    const { gutterPx, widthPx, window } = input;
    const scale = pxPerNs(input);
    const x0 = gutterPx + (mark.startNs - window.startNs) * scale;
    const x1 = gutterPx + (mark.endNs - window.startNs) * scale;
    if (!(x1 < gutterPx || x0 > widthPx)) {
      const center = (Math.max(gutterPx, x0) + Math.min(widthPx, x1)) / 2;
      boxes.push(labelBoxPx(input, formatDurationNs(mark.endNs - mark.startNs), center));
    }
  }
  const xPx = cursorXPx(input);
  if (xPx !== null) {
    boxes.push(labelBoxPx(input, formatDurationNs(input.cursorNs!), xPx));
  }
  return boxes;
}
