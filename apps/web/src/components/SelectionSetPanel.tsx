import { formatBytes, formatDurationNs } from '@streamscope/trace';
import type { Trace } from '@streamscope/trace';
import { stepOpSet } from '../data/op-set-actions.ts';
import { formatCount } from '../lib/format.ts';
import type { DurationStats } from '../lib/op-set-stats.ts';
import { opSetStats } from '../lib/op-set-stats.ts';
import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';

/**
 * Ops selected together (ctrl/cmd-click or a finding's "show"): the set's aggregates (count,
 * total/mean/min/max duration, by kind, by stream, copy bytes and bandwidth) and next/previous
 * through it in time order, "k of N".
 */
export function SelectionSetPanel({ trace }: { trace: Trace }) {
  const set = useApp((s) => s.opSet);
  const index = useApp((s) => s.opSetIndex);
  const source = useApp((s) => s.opSetSource);
  const stats = opSetStats(trace, set);
  const name = (op: number | undefined): string =>
    op === undefined ? '' : trace.strings.get(trace.ops.columns().nameId[op]!);
  return (
    <div className="panel" data-testid="selection-set">
      <div className="row">
        <h3 data-testid="selection-set-title">
          {formatCount(stats.count)} ops selected{source === null ? '' : ` · ${source}`}
        </h3>
        <span className="spacer" />
        <button
          type="button"
          aria-label="Previous op of the selection"
          title="Previous op of the selection ([)"
          data-testid="set-prev"
          onClick={() => stepOpSet(-1)}
        >
          ◀
        </button>
        <span className="small" data-testid="set-position">
          {formatCount(index + 1)} of {formatCount(set.length)}
        </span>
        <button
          type="button"
          aria-label="Next op of the selection"
          title="Next op of the selection (])"
          data-testid="set-next"
          onClick={() => stepOpSet(1)}
        >
          ▶
        </button>
        <button
          type="button"
          className="quiet"
          data-testid="set-clear"
          title="Clear the selection (Esc)"
          onClick={() => appStore.getState().selectOp(null)}
        >
          Clear
        </button>
      </div>
      <p className="small muted" data-testid="set-current">
        Current: {name(set[index])}
      </p>
      <dl className="kv">
        <dt>Count</dt>
        <dd data-testid="set-count">{formatCount(stats.count)}</dd>
        <dt>Total duration</dt>
        <dd data-testid="set-total">{formatDurationNs(stats.totalNs)}</dd>
        <dt>Mean / min / max</dt>
        <dd data-testid="set-mean-min-max">
          {formatDurationNs(stats.meanNs)} / {formatDurationNs(stats.minNs)} /{' '}
          {formatDurationNs(stats.maxNs)}
        </dd>
        {stats.copies.count > 0 && (
          <>
            <dt>Copies</dt>
            <dd data-testid="set-copies">
              {formatCount(stats.copies.count)}:{' '}
              {stats.copies.bytes > 0
                ? `${formatBytes(stats.copies.bytes)} at ${stats.copies.bandwidthGBps.toFixed(2)} GB/s`
                : 'no bytes recorded'}
              {stats.copies.sizeUnknown > 0 && ` (${stats.copies.sizeUnknown} of unknown size)`}
            </dd>
          </>
        )}
      </dl>
      <GroupTable
        testId="set-by-kind"
        heading="Kind"
        rows={stats.byKind.map((k) => ({ key: k.kind, label: k.kind, stats: k }))}
      />
      <GroupTable
        testId="set-by-stream"
        heading="Stream"
        rows={stats.byStream.map((s) => ({ key: String(s.track), label: s.label, stats: s }))}
      />
    </div>
  );
}

/** Count, total and mean duration of each group (a kind's ops, a stream's ops) of the set. */
function GroupTable(props: {
  testId: string;
  heading: string;
  rows: readonly { key: string; label: string; stats: DurationStats }[];
}) {
  return (
    <table className="table compact" data-testid={props.testId}>
      <thead>
        <tr>
          <th>{props.heading}</th>
          <th className="num">Count</th>
          <th className="num">Total</th>
          <th className="num">Mean</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((r) => (
          <tr key={r.key}>
            <td>{r.label}</td>
            <td className="num">{formatCount(r.stats.count)}</td>
            <td className="num">{formatDurationNs(r.stats.totalNs)}</td>
            <td className="num">{formatDurationNs(r.stats.meanNs)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
