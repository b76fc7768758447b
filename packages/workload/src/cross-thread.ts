import type { RecordSite, ThreadCtx, WaitSite } from './expand-types.ts';
import type { IssueList } from './issues.ts';
import type { PlanEvent, PlanOp } from './plan.ts';

/**
 * Binds every wait to its event's recording thread and checks the issue order can finish:
 * an event has one recording thread; a wait in that thread must follow its first record; a
 * wait in another thread blocks its thread until that record was issued (`afterRecord`), and
 * such blocks must not form a cycle.
 */
export function bindWaits(
  issues: IssueList,
  threads: readonly ThreadCtx[],
  events: { -readonly [K in keyof PlanEvent]: PlanEvent[K] }[],
  records: ReadonlyMap<number, readonly RecordSite[]>,
  waits: readonly WaitSite[],
): void {
  for (const [event, sites] of records) {
    const [first, second] = sites;
    if (second !== undefined && first !== undefined) {
      issues.add(
        second.path,
        `event "${events[event]!.name}" is also recorded by thread "${threads[first.thread]!.name}"; an event has one recording thread`,
      );
    }
    if (first !== undefined) {
      events[event]!.recordedBy = first.thread;
    }
  }
  // Per thread: its cross-thread waits in order, as [index in the thread, record it waits for].
  const blocking: { index: number; record: RecordSite; path: string }[][] = threads.map(() => []);
  for (const wait of waits) {
    const site = records.get(wait.event)?.[0];
    const name = events[wait.event]!.name;
    if (site === undefined) {
      issues.add(
        wait.path,
        `event "${name}" is never recorded, so waiting on it would wait for nothing`,
      );
      continue;
    }
    if (site.thread === wait.thread) {
      if (site.index > wait.index) {
        issues.add(
          wait.path,
          `waits on event "${name}" before this thread first records it (at ${site.path})`,
        );
      }
      continue;
    }
    const ops = threads[wait.thread]!.ops;
    const op = ops[wait.index]!;
    if (op.kind === 'streamWait' || op.kind === 'eventSync') {
      ops[wait.index] = { ...op, afterRecord: site.opId } satisfies PlanOp;
    }
    blocking[wait.thread]!.push({ index: wait.index, record: site, path: wait.path });
  }
  checkDeadlock(issues, threads, blocking);
}

/** Issues every thread as far as it can; a thread stuck behind a record never issued is a deadlock. */
function checkDeadlock(
  issues: IssueList,
  threads: readonly ThreadCtx[],
  blocking: readonly { index: number; record: RecordSite; path: string }[][],
): void {
  // issued[t]: how many ops of thread t were issued; next[t]: its next blocking wait.
  const issued = threads.map(() => 0);
  const next = threads.map(() => 0);
  let progress = true;
  while (progress) {
    progress = false;
    threads.forEach((thread, t) => {
      const waitsOfT = blocking[t]!;
      for (;;) {
        const w = waitsOfT[next[t]!];
        if (w === undefined) {
          if (issued[t] !== thread.ops.length) {
            issued[t] = thread.ops.length;
            progress = true;
          }
          return;
        }
        if (issued[t]! < w.index) {
          issued[t] = w.index;
          progress = true;
        }
        if (issued[w.record.thread]! <= w.record.index) {
          return;
        }
        next[t]!++;
        progress = true;
      }
    });
  }
  threads.forEach((thread, t) => {
    const w = blocking[t]![next[t]!];
    if (w !== undefined) {
      issues.add(
        w.path,
        `deadlock: thread "${thread.name}" waits here for a record (${w.record.path}) that thread ` +
          `"${threads[w.record.thread]!.name}" can only issue after waits that never end`,
      );
    }
  });
}
