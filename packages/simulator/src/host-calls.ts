import { OpKind } from '@streamscope/trace';
import type { CmdSlot } from './command-store.ts';
import type { HostThreadState, SimCore } from './core.ts';

/**
 * API calls on a host thread's lane: a plain call enters the trace at once; a blocking one
 * (a sync, a pageable copy, cudaMalloc) when it returns, with its flows to the command it
 * issued or the record it waited for.
 */
export class HostCalls {
  constructor(private readonly core: SimCore) {}

  /**
   * Completes a blocking call at `endNs`: its API op enters the trace. Returns when the thread
   * goes on: `endNs` plus the host's gap between calls.
   */
  finish(t: HostThreadState, endNs: number): number {
    const call = t.call;
    call.active = false;
    const cmds = this.core.cmds;
    const w = this.core.writer;
    const apiOp = w.host(
      t.track,
      call.startNs,
      endNs,
      OpKind.ApiCall,
      call.nameId,
      call.correlationId,
      call.flags,
    );
    if (call.cmd >= 0) {
      w.linkApi(apiOp, call.cmd);
      cmds.release(call.cmd);
    }
    if (call.flowFrom >= 0) {
      w.recordToWait(call.flowFrom, apiOp);
      cmds.release(call.flowFrom);
    }
    t.pc++;
    return endNs + this.core.gapAfterCall(t);
  }

  /**
   * Starts a call that may block (its API op is written when it returns): fills the thread's
   * pending call, retaining `cmd` and `flowFrom` (-1 for none) until then.
   */
  begin(
    t: HostThreadState,
    nameId: number,
    correlationId: number,
    flags: number,
    minEndNs: number,
    afterWaitNs: number,
    cmd: CmdSlot,
    flowFrom: CmdSlot,
  ): void {
    const call = t.call;
    call.active = true;
    call.startNs = this.core.nowNs;
    call.nameId = nameId;
    call.correlationId = correlationId;
    call.flags = flags;
    call.minEndNs = minEndNs;
    call.afterWaitNs = afterWaitNs;
    call.cmd = cmd;
    call.flowFrom = flowFrom;
    if (cmd >= 0) {
      this.core.cmds.retain(cmd);
    }
    if (flowFrom >= 0) {
      this.core.cmds.retain(flowFrom);
    }
  }

  /** After `begin`: returns when the call continues, or -1 while the thread waits. */
  endOrWait(t: HostThreadState, blocked: boolean): number {
    if (blocked) {
      return -1;
    }
    return this.finish(t, Math.max(t.call.minEndNs, this.core.nowNs + t.call.afterWaitNs));
  }

  /** A call that returns at once, written now; returns its op index. */
  api(t: HostThreadState, nameId: number, costNs: number, correlationId = 0, flags = 0): number {
    const core = this.core;
    return core.writer.host(
      t.track,
      core.nowNs,
      core.nowNs + costNs,
      OpKind.ApiCall,
      nameId,
      correlationId,
      flags,
    );
  }
}
