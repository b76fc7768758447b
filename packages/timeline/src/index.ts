/** The timeline renderer: typed arrays in, pixels out. No React, no store (DESIGN.md). */
export type {
  TimelineView,
  TimelineViewOptions,
  ScrollInfo,
  TrackLaneHit,
} from './timeline-view-api.ts';
export type { LaunchSegments, QueueDepthTrack } from './track-lanes.ts';
export { createTimelineView } from './timeline-view.ts';
export type { ExportOptions } from './export-frame.ts';
export { windowLabel } from './export-frame.ts';
export type { Viewport } from './viewport.ts';
export {
  clampViewport,
  fitViewport,
  zoomViewport,
  panViewport,
  placeInTrace,
  minSpanNs,
} from './viewport.ts';
export type { TimelineHit } from './hit-test.ts';
export { hitTest, nearestOp, nearestRange, hitSlopPx } from './hit-test.ts';
export type { AreaSelection, FrameStats, MarkedRange } from './frame-input.ts';
export type { LayoutRow, RowLayout, RowKind, LayoutOptions } from './layout.ts';
export {
  computeLayout,
  rowIndexAt,
  defaultRowHeights,
  syncLaneLabel,
  launchLaneLabel,
  queueTrackLabel,
} from './layout.ts';
export type { GutterLabel } from './draw-rows.ts';
export { gutterLabel } from './draw-rows.ts';
export { isHostWaitKind } from './sync-lane.ts';
export type { AxisTick, AxisTicks, TimeUnit } from './axis-ticks.ts';
export { axisTicks, niceStepNs, formatTick } from './axis-ticks.ts';
export type { Rgba, LegendEntry } from './colors.ts';
export { opLegend, colorOfKind, cssColor, chrome } from './colors.ts';
export type { GapTable } from './gaps.ts';
export { GapCause, gapLegend, colorOfGap } from './gaps.ts';
export type { IntervalBuffers } from './interval-buffers.ts';
export { IntervalBuilder } from './interval-buffers.ts';
export { bucketNsFor, bucketIntervals } from './lod.ts';
export type { PaintSurface } from './paint-surface.ts';
export type { FrameClock } from './scheduler.ts';
export type { SyntheticTraceOptions } from './synthetic-trace.ts';
export { syntheticTrace } from './synthetic-trace.ts';
export { gpuActivitySpan, isGpuWorkKind } from './gpu-span.ts';
export { isGroupKey, rangeSourceOf } from './group-keys.ts';
export type { SearchBuckets } from './search-buckets.ts';
export { searchBuckets } from './search-buckets.ts';
export type { TileSource } from './tile-source.ts';
export { appendTileBuckets } from './tile-source.ts';
export type { TileFetcher, TileMeta, TiledTraceOptions } from './tiled-trace.ts';
export { TiledTrace, tileBuckets } from './tiled-trace.ts';
export type { RangeLanes } from './range-lanes.ts';
export { rangeLanesOf } from './range-lanes.ts';
