import type { Trace, TrackInfo } from '@streamscope/trace';
import { displayOrder, trackLabel } from '@streamscope/trace';
import {
  contextGroupKey,
  deviceGroupKey,
  groupTrackCounts,
  hiddenCountLabel,
  hostGroupKey,
  nvtxGroupKey,
  processGroupKey,
} from './group-keys.ts';
import type { RangeLanes } from './range-lanes.ts';
import { traceRangeLanes } from './range-lanes.ts';
import { syncLaneTracks } from './sync-lane.ts';

/**
 * 'sync': a track's host waits, in a thin lane under its row (sync-lane.ts); 'launch': the host
 * ranges that launched a stream's ops; 'queue': its launch queue depth (track-lanes.ts).
 */
export type RowKind = 'group' | 'track' | 'nvtx' | 'sync' | 'launch' | 'queue';

/** Gutter label of a sync lane. */
export const syncLaneLabel = 'Host waits';
/** Gutter labels of a stream's launching host ranges and of its launch queue depth. */
export const launchLaneLabel = 'Launched from';
// The queue row's bars are log2(1 + depth) high (track-lanes.ts `queueBarHeightPx`): say so.
export const queueTrackLabel = 'Queue depth (log)';

/** One horizontal band of the timeline. Rows are few (per track, not per op), so objects are fine. */
export interface LayoutRow {
  readonly kind: RowKind;
  readonly label: string;
  /** Track index for 'track', 'nvtx' and 'sync' rows; -1 for group headers. */
  readonly track: number;
  /** Nesting level of the label (0 = process, 1 = device/host, 2 = context, …). */
  readonly indent: number;
  /** Top of the row in its band: the pinned band for pinned rows, else the scrolling content. */
  readonly topPx: number;
  readonly heightPx: number;
  /** Lanes stacked in the row: NVTX nesting depths (depth d is lane d); 1 in a sync lane; else 0. */
  readonly depthCount: number;
  readonly pinned: boolean;
  /**
   * Key of what a click on the row's label collapses or expands (group-keys.ts): a process,
   * a device, a context, the host threads or a track's NVTX lanes. Absent when it folds nothing.
   */
  readonly groupKey?: string;
  /** The row stands for its folded content (a header with the count of what it hides). */
  readonly collapsed?: boolean;
}

export interface RowLayout {
  readonly rows: readonly LayoutRow[];
  /** Rows fixed under the axis (pinned tracks), then the scrolling rows. */
  readonly pinnedRowCount: number;
  readonly pinnedHeightPx: number;
  /** Height of the scrolling rows. */
  readonly contentHeightPx: number;
  /** track → index into `rows` of its 'track' row, or -1 when hidden. */
  readonly rowOfTrack: Int32Array;
  /** track → index into `rows` of its NVTX row, or -1. */
  readonly nvtxRowOfTrack: Int32Array;
  /** track → index into `rows` of its sync lane (its host waits), or -1. */
  readonly syncRowOfTrack: Int32Array;
}

export interface LayoutOptions {
  /** Tracks shown in the fixed band under the axis, in this order. */
  readonly pinnedTracks?: readonly number[];
  readonly hiddenTracks?: ReadonlySet<number>;
  /** Group keys (group-keys.ts) folded to their header. */
  readonly collapsedGroups?: ReadonlySet<string>;
  /** Whether headers carry group keys (and a chevron) at all; true unless false. */
  readonly foldable?: boolean;
  /** Tracks whose host waits get a sync lane; found by scanning the trace when not given. */
  readonly syncLaneTracks?: ReadonlySet<number>;
  /** Streams that get a lane of the host ranges that launched their ops, and a queue-depth track. */
  readonly launchLaneTracks?: ReadonlySet<number>;
  readonly queueTracks?: ReadonlySet<number>;
  /** Range lanes of the whole trace (tiled mode); computed from `trace` when absent. */
  readonly rangeLanes?: RangeLanes;
  readonly groupHeightPx?: number;
  readonly streamRowHeightPx?: number;
  readonly hostRowHeightPx?: number;
  readonly nvtxLaneHeightPx?: number;
  readonly syncLaneHeightPx?: number;
  readonly launchLaneHeightPx?: number;
  readonly queueTrackHeightPx?: number;
}

export const defaultRowHeights: {
  readonly groupHeightPx: number;
  readonly streamRowHeightPx: number;
  readonly hostRowHeightPx: number;
  readonly nvtxLaneHeightPx: number;
  readonly syncLaneHeightPx: number;
  readonly launchLaneHeightPx: number;
  readonly queueTrackHeightPx: number;
} = {
  groupHeightPx: 20,
  streamRowHeightPx: 24,
  hostRowHeightPx: 18,
  nvtxLaneHeightPx: 14,
  syncLaneHeightPx: 14,
  launchLaneHeightPx: 14,
  queueTrackHeightPx: 30,
};

/**
 * Rows for a trace: per process (a header when there are several), its host threads with their
 * NVTX lanes, then per device (a header) and context (a header when a device has several) its
 * streams in `displayOrder`. A track whose host waits would share its row with other ops gets a
 * sync lane right under that row. Pinned tracks move to the fixed band with their lanes; hidden
 * tracks get no row.
 */
export function computeLayout(trace: Trace, options: LayoutOptions = {}): RowLayout {
  const h = { ...defaultRowHeights, ...stripUndefined(options) };
  const tracks = trace.tracks;
  const hidden = options.hiddenTracks ?? new Set<number>();
  const pinned = (options.pinnedTracks ?? []).filter(
    (t, i, all) => t >= 0 && t < tracks.length && !hidden.has(t) && all.indexOf(t) === i,
  );
  const pinnedSet = new Set(pinned);
  // The whole trace's range lanes: a tiled view's window holds only some of its ranges.
  const lanes = options.rangeLanes ?? traceRangeLanes(trace);
  const depths = lanes.depths;
  const syncLanes = options.syncLaneTracks ?? syncLaneTracks(trace);
  const foldable = options.foldable !== false;
  const collapsed = foldable ? (options.collapsedGroups ?? new Set<string>()) : new Set<string>();
  const rangeCounts = lanes.counts;
  const rangeLabels = lanes.labels;
  const rows: LayoutRow[] = [];
  const rowOfTrack = new Int32Array(tracks.length).fill(-1);
  const nvtxRowOfTrack = new Int32Array(tracks.length).fill(-1);
  const syncRowOfTrack = new Int32Array(tracks.length).fill(-1);
  let y = 0;
  const push = (row: Omit<LayoutRow, 'topPx' | 'pinned'>, isPinned: boolean): void => {
    if (row.kind === 'track') {
      rowOfTrack[row.track] = rows.length;
    } else if (row.kind === 'nvtx') {
      nvtxRowOfTrack[row.track] = rows.length;
    } else if (row.kind === 'sync') {
      syncRowOfTrack[row.track] = rows.length;
    }
    const { groupKey, collapsed: folded, ...plain } = row;
    rows.push(
      foldable && groupKey !== undefined
        ? { ...plain, groupKey, collapsed: folded === true, topPx: y, pinned: isPinned }
        : { ...plain, topPx: y, pinned: isPinned },
    );
    y += row.heightPx;
  };
  const pushTrack = (t: number, indent: number, isPinned: boolean): void => {
    const track = tracks[t]!;
    const heightPx = track.kind === 'gpu-stream' ? h.streamRowHeightPx : h.hostRowHeightPx;
    const label = isPinned
      ? `${trackLabel(track)} · ${whereLabel(trace, track)}`
      : trackLabel(track);
    push({ kind: 'track', label, track: t, indent, heightPx, depthCount: 0 }, isPinned);
    if (syncLanes.has(t)) {
      push(
        {
          kind: 'sync',
          label: syncLaneLabel,
          track: t,
          indent: indent + 1,
          heightPx: h.syncLaneHeightPx,
          depthCount: 1,
        },
        isPinned,
      );
    }
    const lane = (kind: 'launch' | 'queue', label: string, heightPx: number): void =>
      push({ kind, label, track: t, indent: indent + 1, heightPx, depthCount: 1 }, isPinned);
    if (options.launchLaneTracks?.has(t) === true) {
      lane('launch', launchLaneLabel, h.launchLaneHeightPx);
    }
    if (options.queueTracks?.has(t) === true) {
      lane('queue', queueTrackLabel, h.queueTrackHeightPx);
    }
    const depthCount = depths[t] ?? 0;
    if (depthCount > 0) {
      const groupKey = nvtxGroupKey(t);
      const label = rangeLabels[t] ?? 'NVTX';
      if (collapsed.has(groupKey)) {
        push(
          {
            kind: 'group',
            label: `${label} · ${hiddenCountLabel(rangeCounts[t] ?? 0, 'range')}`,
            track: -1,
            indent: indent + 1,
            heightPx: h.nvtxLaneHeightPx,
            depthCount: 0,
            groupKey,
            collapsed: true,
          },
          isPinned,
        );
        return;
      }
      push(
        {
          kind: 'nvtx',
          label,
          track: t,
          indent: indent + 1,
          heightPx: depthCount * h.nvtxLaneHeightPx,
          depthCount,
          groupKey,
          collapsed: false,
        },
        isPinned,
      );
    }
  };

  for (const t of pinned) {
    pushTrack(t, 0, true);
  }
  const pinnedRowCount = rows.length;
  const pinnedHeightPx = y;
  y = 0;

  const order = displayOrder(tracks).filter((t) => !hidden.has(t) && !pinnedSet.has(t));
  // A process is a (rank, pid): ranks merged from several hosts may share a pid.
  const procKey = (track: TrackInfo): string => `${track.rank ?? ''}:${track.pid}`;
  const pids = new Set(order.map((t) => procKey(tracks[t]!)));
  const multiProcess = pids.size > 1;
  const contextsByDevice = new Map<string, Set<number>>();
  for (const t of order) {
    const track = tracks[t]!;
    if (track.kind === 'gpu-stream') {
      const key = `${procKey(track)}/${track.deviceId}`;
      const set = contextsByDevice.get(key) ?? new Set<number>();
      set.add(track.contextId);
      contextsByDevice.set(key, set);
    }
  }
  const counts = groupTrackCounts(trace, order);
  let lastProc = '';
  let lastGroup = '';
  let lastContext = '';
  const base = multiProcess ? 1 : 0;
  const pushGroup = (label: string, key: string, indent: number, unit: string): boolean => {
    const folded = collapsed.has(key);
    push(
      {
        kind: 'group',
        label: folded ? `${label} · ${hiddenCountLabel(counts.get(key) ?? 0, unit)}` : label,
        track: -1,
        indent,
        heightPx: h.groupHeightPx,
        depthCount: 0,
        groupKey: key,
        collapsed: folded,
      },
      false,
    );
    return folded;
  };
  let foldedProcess = false;
  let foldedGroup = false;
  let foldedContext = false;
  for (const t of order) {
    const track = tracks[t]!;
    if (multiProcess && procKey(track) !== lastProc) {
      const name =
        trace.processes.find((p) => p.pid === track.pid && p.rank === track.rank)?.name ??
        'process';
      foldedProcess = pushGroup(
        track.rank === undefined
          ? `${name} (pid ${track.pid})`
          : `rank ${track.rank} · ${name} (pid ${track.pid})`,
        processGroupKey(track.pid),
        0,
        'track',
      );
      lastGroup = '';
      lastContext = '';
    }
    lastProc = procKey(track);
    if (foldedProcess) {
      continue;
    }
    const group =
      track.kind === 'host-thread'
        ? `${procKey(track)}/host`
        : `${procKey(track)}/${track.deviceId}`;
    if (group !== lastGroup) {
      foldedGroup =
        track.kind === 'host-thread'
          ? pushGroup('Host threads', hostGroupKey(track.pid), base, 'thread')
          : pushGroup(
              deviceLabel(trace, track.deviceId),
              deviceGroupKey(track.pid, track.deviceId),
              base,
              'stream',
            );
      lastGroup = group;
      lastContext = '';
      foldedContext = false;
    }
    if (foldedGroup) {
      continue;
    }
    let indent = base + 1;
    if (track.kind === 'gpu-stream' && (contextsByDevice.get(group)?.size ?? 0) > 1) {
      const context = `${group}/${track.contextId}`;
      if (context !== lastContext) {
        foldedContext = pushGroup(
          `Context ${track.contextId}`,
          contextGroupKey(track.pid, track.deviceId, track.contextId),
          base + 1,
          'stream',
        );
        lastContext = context;
      }
      if (foldedContext) {
        continue;
      }
      indent++;
    }
    pushTrack(t, indent, false);
  }
  return {
    rows,
    pinnedRowCount,
    pinnedHeightPx,
    contentHeightPx: y,
    rowOfTrack,
    nvtxRowOfTrack,
    syncRowOfTrack,
  };
}

function deviceLabel(trace: Trace, deviceId: number): string {
  const device = trace.devices.find((d) => d.deviceId === deviceId);
  // Some exports name a device just "GPU 0": say it once.
  return device === undefined || device.name === '' || device.name === `GPU ${deviceId}`
    ? `GPU ${deviceId}`
    : `GPU ${deviceId} · ${device.name}`;
}

function whereLabel(trace: Trace, track: TrackInfo): string {
  return track.kind === 'host-thread' ? `pid ${track.pid}` : `GPU ${track.deviceId}`;
}

function stripUndefined(options: LayoutOptions): Partial<typeof defaultRowHeights> {
  const out: Partial<Record<keyof typeof defaultRowHeights, number>> = {};
  for (const key of Object.keys(defaultRowHeights) as (keyof typeof defaultRowHeights)[]) {
    const value = options[key];
    if (value !== undefined) {
      out[key] = value;
    }
  }
  return out;
}

/**
 * Index of the row at `yPx`, measured from the top of the row area (just under the axis), or -1.
 * Pinned rows stay put; the others move up by `scrollTopPx`.
 */
export function rowIndexAt(layout: RowLayout, yPx: number, scrollTopPx: number): number {
  if (yPx < 0) {
    return -1;
  }
  if (yPx < layout.pinnedHeightPx) {
    return searchRows(layout.rows, 0, layout.pinnedRowCount, yPx);
  }
  const contentY = yPx - layout.pinnedHeightPx + scrollTopPx;
  return searchRows(layout.rows, layout.pinnedRowCount, layout.rows.length, contentY);
}

function searchRows(rows: readonly LayoutRow[], from: number, to: number, yPx: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const row = rows[mid]!;
    if (row.topPx + row.heightPx <= yPx) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  const row = rows[lo];
  return row !== undefined && lo < to && row.topPx <= yPx ? lo : -1;
}

/** Screen top (from the row area's top) of a row, given the scroll offset. */
export function rowScreenTopPx(layout: RowLayout, row: LayoutRow, scrollTopPx: number): number {
  return row.pinned ? row.topPx : layout.pinnedHeightPx + row.topPx - scrollTopPx;
}
