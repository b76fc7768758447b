import { useEffect } from 'react';
import { useApp } from '../store/use-app.ts';
import { refreshTraceList } from './trace-loader.ts';

/** Refreshes the trace list on mount and every 2 s while a run is queued or running. */
export function useTraceList(): void {
  const busy = useApp((s) =>
    s.traceList.some((e) => e.status === 'queued' || e.status === 'running'),
  );
  useEffect(() => {
    void refreshTraceList();
  }, []);
  useEffect(() => {
    if (!busy) {
      return;
    }
    const timer = setInterval(() => void refreshTraceList(), 2000);
    return () => clearInterval(timer);
  }, [busy]);
}
