/** The last frame's statistics of each mounted timeline, keyed by its data-testid. */
export interface RendererStatsSnapshot {
  readonly drawnOps: number;
  readonly rects: number;
  readonly labels: number;
  /** Device px columns of pixel strips the last frame rasterized (fewer when it only panned). */
  readonly paintedColumnsPx: number;
  readonly frameMs: number;
  readonly lod: number;
  /** Stream rows drawn from a big trace's tiles (tiled mode, zoomed out). */
  readonly fromTiles?: boolean;
  /** Search strips drawn from the server's per-bucket counts (tiled mode, over tiles). */
  readonly searchMarks?: number;
  /** Gap shadings drawn. */
  readonly gaps?: number;
  /** Flows of the selected op drawn as arrows. */
  readonly selectionFlows?: number;
  /** Ops in the trace the view holds (grows during a live run). */
  readonly traceOps: number;
  readonly frames: number;
  readonly viewStartNs: number;
  readonly viewEndNs: number;
}

const stats = new Map<string, RendererStatsSnapshot>();

export function recordRendererStats(viewId: string, snapshot: RendererStatsSnapshot): void {
  stats.set(viewId, snapshot);
}

export function forgetRendererStats(viewId: string): void {
  stats.delete(viewId);
}

export function latestRendererStats(): Readonly<Record<string, RendererStatsSnapshot>> {
  return Object.fromEntries(stats);
}
