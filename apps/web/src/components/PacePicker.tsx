/** How a run is played: as fast as the backend can, at GPU speed, or GPU time slowed down. */
export interface RunPace {
  readonly pace: 'fast' | 'realtime';
  /** Realtime only: GPU time runs this many times slower than wall time (the server's field). */
  readonly slowdown: number;
}

interface PaceOption extends RunPace {
  readonly id: string;
  readonly label: string;
}

/** The Run page's speeds; real time is the server's default. */
export const paceOptions: readonly PaceOption[] = [
  { id: 'instant', label: 'instant', pace: 'fast', slowdown: 1 },
  { id: 'realtime', label: 'real time', pace: 'realtime', slowdown: 1 },
  { id: 'slow10', label: '10× slower', pace: 'realtime', slowdown: 10 },
  { id: 'slow100', label: '100× slower', pace: 'realtime', slowdown: 100 },
  { id: 'slow1000', label: '1000× slower', pace: 'realtime', slowdown: 1000 },
];

/**
 * Speed of a sim or replay run, so a run of a few simulated ms can be watched filling in (the
 * cuda backend runs at the GPU's own pace whatever is picked).
 */
export function PacePicker({
  paceId,
  onChange,
}: {
  readonly paceId: string;
  readonly onChange: (paceId: string) => void;
}) {
  return (
    <label
      className="field"
      title="How the simulator or a replay plays the run: GPU time as is, or slowed down to watch"
    >
      <span>Speed</span>
      <select data-testid="pace-select" value={paceId} onChange={(e) => onChange(e.target.value)}>
        {paceOptions.map((o) => (
          <option key={o.id} value={o.id}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The request fields of a pace option (none for the server's default, real time). */
export function paceRequest(paceId: string): Partial<RunPace> {
  const option = paceOptions.find((o) => o.id === paceId);
  if (option === undefined || option.id === 'realtime') {
    return {};
  }
  return option.pace === 'fast'
    ? { pace: 'fast' }
    : { pace: 'realtime', slowdown: option.slowdown };
}
