import type { Ctx, ExpandBase } from './expand-types.ts';
import type {
  CollectiveKind,
  PlanCollective,
  PlanCollectiveMember,
  PlanDtype,
  PlanGroup,
  PlanP2p,
} from './plan.ts';
import { dtypeBytes } from './plan.ts';
import type { Workload, WorkloadOp } from './schema.ts';
import { at } from './values.ts';

type CollectiveOp = Extract<WorkloadOp, { op: CollectiveKind }>;
type P2pOp = Extract<WorkloadOp, { op: 'send' | 'recv' }>;

/** A send or recv waiting for its other half, by (sender, receiver) device pair. */
interface P2pSite {
  readonly op: { -readonly [K in keyof PlanP2p]: PlanP2p[K] };
  readonly path: string;
}

/**
 * Declares the device groups and expands collectives (allReduce, reduceScatter, allGather,
 * broadcast) and point-to-point send/recv: members' streams on their devices, buffers on the
 * member's device and large enough, bytes a whole number of elements, sends paired with recvs.
 */
export class CollectiveExpander {
  readonly groups: PlanGroup[] = [];
  private readonly groupIds = new Map<string, number>();
  private readonly calls: number[] = [];
  /** Unpaired sends and recvs per "sender>receiver", oldest first. */
  private readonly pendingSends = new Map<string, P2pSite[]>();
  private readonly pendingRecvs = new Map<string, P2pSite[]>();

  constructor(private readonly base: ExpandBase) {}

  declareGroups(workload: Workload): void {
    const names = new Set<string>();
    workload.groups.forEach((g, i) => {
      const path = `$.groups[${i}]`;
      if (names.has(g.name)) {
        this.base.issues.add(`${path}.name`, `group "${g.name}" is declared twice`);
        return;
      }
      names.add(g.name);
      const devices: number[] = [];
      let ok = true;
      g.devices.forEach((name, k) => {
        const known = this.base.decl.devices.some((d) => d.name === name);
        const id = this.base.decl.device(name, `${path}.devices[${k}]`);
        if (!known) {
          ok = false;
        } else if (devices.includes(id)) {
          this.base.issues.add(
            `${path}.devices[${k}]`,
            `device "${name}" is in group "${g.name}" twice (a device is one member)`,
          );
          ok = false;
        }
        devices.push(id);
      });
      if (ok) {
        this.groupIds.set(g.name, this.groups.length);
        this.groups.push({ id: this.groups.length, name: g.name, devices });
        this.calls.push(0);
      }
    });
  }

  collective(ctx: Ctx, op: CollectiveOp, path: string): void {
    const base = this.base;
    if (!base.notInGraph(ctx, path, `${op.op}`)) {
      return;
    }
    const groupId = this.groupIds.get(op.group);
    if (groupId === undefined) {
      base.issues.add(
        `${path}.group`,
        `unknown group "${op.group}" (declared: ${[...this.groupIds.keys()].join(', ') || 'none'})`,
      );
      return;
    }
    const group = this.groups[groupId]!;
    const n = group.devices.length;
    const elementBytes = dtypeBytes[op.dtype];
    const bytes = this.elementBytes(op.bytes, op.dtype, ctx, `${path}.bytes`);
    let ok = bytes !== undefined;
    for (const field of ['streams', 'send', 'recv'] as const) {
      const list = op[field];
      if (list !== undefined && list.length !== n) {
        base.issues.add(
          `${path}.${field}`,
          `group "${group.name}" has ${n} members: ${field} lists ${list.length}, one per member in member order`,
        );
        ok = false;
      }
    }
    if (op.op === 'broadcast' && op.root >= n) {
      base.issues.add(
        `${path}.root`,
        `root ${op.root} is not a member of group "${group.name}" (ranks 0..${n - 1})`,
      );
      ok = false;
    }
    const sendOffset = this.offset(op.sendOffset, ctx, `${path}.sendOffset`);
    const recvOffset = this.offset(op.recvOffset, ctx, `${path}.recvOffset`);
    if (!ok || bytes === undefined || sendOffset === undefined || recvOffset === undefined) {
      return;
    }
    const inPlace = op.recv === undefined;
    // Region sizes per member (NCCL's count is per member; see PlanCollective).
    const sendBytes = op.op === 'reduceScatter' ? n * bytes : bytes;
    const recvBytes = op.op === 'allGather' ? n * bytes : bytes;
    const members: PlanCollectiveMember[] = [];
    for (let rank = 0; rank < n; rank++) {
      const device = group.devices[rank]!;
      const stream = this.memberStream(ctx, op.streams[rank]!, device, `${path}.streams[${rank}]`);
      const send = this.deviceBuffer(ctx, op.send[rank]!, device, `${path}.send[${rank}]`);
      const recv =
        op.recv === undefined
          ? send
          : this.deviceBuffer(ctx, op.recv[rank]!, device, `${path}.recv[${rank}]`);
      if (stream === undefined || send === undefined || recv === undefined) {
        ok = false;
        continue;
      }
      // In place, the member's own region sits inside the larger one, as NCCL requires.
      let memberSend = sendOffset;
      let memberRecv = inPlace ? sendOffset : recvOffset;
      if (inPlace && op.op === 'allGather') {
        memberSend = memberRecv + rank * bytes;
      } else if (inPlace && op.op === 'reduceScatter') {
        memberRecv = memberSend + rank * bytes;
      }
      const sendOk = this.fits(send, memberSend, sendBytes, `${path}.send[${rank}]`, 'send', op);
      const recvField = inPlace ? `${path}.send[${rank}]` : `${path}.recv[${rank}]`;
      const recvOk = this.fits(recv, memberRecv, recvBytes, recvField, 'recv', op);
      if (!sendOk || !recvOk) {
        ok = false;
        continue;
      }
      members.push({
        device,
        stream,
        sendBuffer: send,
        sendOffset: memberSend,
        recvBuffer: recv,
        recvOffset: memberRecv,
      });
    }
    if (!ok) {
      return;
    }
    const plan: PlanCollective = {
      kind: 'collective',
      opId: base.id(),
      src: path,
      collective: op.op,
      group: groupId,
      members,
      bytes,
      count: bytes / elementBytes,
      dtype: op.dtype,
      reduce: op.op === 'allReduce' || op.op === 'reduceScatter' ? op.reduce : null,
      root: op.op === 'broadcast' ? op.root : null,
      inPlace,
      algorithm: op.algorithm,
      seq: this.calls[groupId]!++,
    };
    base.emit(ctx, plan, path, 0, 0);
    base.countCollectiveBytes(n * Math.max(sendBytes, recvBytes), path);
  }

  p2p(ctx: Ctx, op: P2pOp, path: string): void {
    const base = this.base;
    if (!base.notInGraph(ctx, path, `${op.op}`)) {
      return;
    }
    const stream = base.stream(ctx, op.stream, `${path}.stream`);
    const device = stream === undefined ? undefined : base.decl.streams[stream]!.device;
    const peerKnown = base.decl.devices.some((d) => d.name === op.peer);
    const peer = base.decl.device(op.peer, `${path}.peer`);
    const bytes = this.elementBytes(op.bytes, op.dtype, ctx, `${path}.bytes`);
    const offset = this.offset(op.offset, ctx, `${path}.offset`);
    if (
      stream === undefined ||
      device === undefined ||
      !peerKnown ||
      bytes === undefined ||
      offset === undefined
    ) {
      return;
    }
    if (peer === device) {
      base.issues.add(
        `${path}.peer`,
        `${op.op} on stream "${op.stream}" of device "${op.peer}" names that same device as its peer`,
      );
      return;
    }
    const buffer = this.deviceBuffer(ctx, op.buffer, device, `${path}.buffer`);
    if (buffer === undefined || !this.fits(buffer, offset, bytes, `${path}.buffer`, op.op, op)) {
      return;
    }
    const plan: PlanP2p = {
      kind: op.op,
      opId: base.id(),
      src: path,
      stream,
      device,
      peer,
      buffer,
      offset,
      bytes,
      count: bytes / dtypeBytes[op.dtype],
      dtype: op.dtype,
      match: -1,
    };
    const site: P2pSite = { op: { ...plan }, path };
    const key = op.op === 'send' ? `${device}>${peer}` : `${peer}>${device}`;
    const others = (op.op === 'send' ? this.pendingRecvs : this.pendingSends).get(key);
    const other = others?.shift();
    if (other === undefined) {
      const mine = op.op === 'send' ? this.pendingSends : this.pendingRecvs;
      mine.set(key, [...(mine.get(key) ?? []), site]);
    } else if (other.op.bytes !== bytes || other.op.dtype !== op.dtype) {
      base.issues.add(
        path,
        `${op.op} of ${bytes} bytes of ${op.dtype} pairs with ${other.op.kind} at ${other.path} of ${other.op.bytes} bytes of ${other.op.dtype}: both halves move the same bytes and dtype`,
      );
      return;
    } else {
      site.op.match = other.op.opId;
      other.op.match = plan.opId;
    }
    base.emit(ctx, site.op, path, 0, 0);
    base.countCollectiveBytes(bytes, path);
  }

  /** Reports every send or recv left without its other half. Call once all threads are expanded. */
  checkPairs(): void {
    const device = (id: number): string => this.base.decl.devices[id]?.name ?? String(id);
    for (const [pending, what, other] of [
      [this.pendingSends, 'send', 'recv'],
      [this.pendingRecvs, 'recv', 'send'],
    ] as const) {
      for (const [key, sites] of pending) {
        const [from, to] = key.split('>').map(Number) as [number, number];
        for (const site of sites) {
          this.base.issues.add(
            site.path,
            `${what} from "${device(from)}" to "${device(to)}" has no matching ${other} (pairs form per device pair in issue order)`,
          );
        }
      }
    }
  }

  private elementBytes(
    value: number | string,
    dtype: PlanDtype,
    ctx: Ctx,
    path: string,
  ): number | undefined {
    const bytes = this.base.values.size(
      value,
      ctx.scope,
      path,
      1,
      this.base.limits.deviceMemoryBytes,
    );
    if (bytes === undefined) {
      return undefined;
    }
    const size = dtypeBytes[dtype];
    if (bytes % size !== 0) {
      this.base.issues.add(
        path,
        `${bytes} bytes is not a whole number of ${dtype} elements (${size} bytes each)${at(ctx.scope)}`,
      );
      return undefined;
    }
    return bytes;
  }

  private offset(value: number | string | undefined, ctx: Ctx, path: string): number | undefined {
    return value === undefined
      ? 0
      : this.base.values.size(value, ctx.scope, path, 0, this.base.limits.deviceMemoryBytes);
  }

  private memberStream(ctx: Ctx, ref: string, device: number, path: string): number | undefined {
    const stream = this.base.stream(ctx, ref, path);
    if (stream === undefined) {
      return undefined;
    }
    const s = this.base.decl.streams[stream]!;
    if (s.device !== device) {
      const name = (id: number): string => this.base.decl.devices[id]?.name ?? String(id);
      this.base.issues.add(
        path,
        `stream "${s.name}" is on device "${name(s.device)}", but this member is device "${name(device)}"${at(ctx.scope)}`,
      );
      return undefined;
    }
    return stream;
  }

  private deviceBuffer(ctx: Ctx, ref: string, device: number, path: string): number | undefined {
    const id = this.base.decl.buffer(ref, ctx.scope, path);
    if (id === undefined) {
      return undefined;
    }
    const b = this.base.decl.buffers[id]!;
    const name = (d: number): string => this.base.decl.devices[d]?.name ?? String(d);
    if (b.kind !== 'device' && b.kind !== 'stream-ordered') {
      this.base.issues.add(
        path,
        `buffer "${b.name}" is ${b.kind} memory; NCCL moves device memory`,
      );
      return undefined;
    }
    if (b.device !== device) {
      this.base.issues.add(
        path,
        `buffer "${b.name}" is on device "${name(b.device)}", but this member is device "${name(device)}"${at(ctx.scope)}`,
      );
      return undefined;
    }
    return id;
  }

  private fits(
    buffer: number,
    offset: number,
    bytes: number,
    path: string,
    role: string,
    op: { readonly op: string },
  ): boolean {
    const b = this.base.decl.buffers[buffer]!;
    if (offset + bytes <= b.bytes) {
      return true;
    }
    const why =
      (op.op === 'allGather' && role === 'recv') || (op.op === 'reduceScatter' && role === 'send')
        ? ` (${op.op}'s ${role} holds members × bytes)`
        : '';
    this.base.issues.add(
      path,
      `${op.op}'s ${role} region [${offset}, ${offset + bytes}) falls outside buffer "${b.name}" of ${b.bytes} bytes${why}`,
    );
    return false;
  }
}
