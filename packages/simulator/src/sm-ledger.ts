/**
 * Which SMs a device's blocks sit on, as far as collectives care. A collective's blocks hold an
 * SM each, whole (NCCL's kernels take its registers and shared memory); other kernels' blocks
 * land on SMs when they start and stay there. Measured on two H200s
 * (fixtures/runs/collectives-h200x2.json, ddp-overlap): one-wave backward kernels of 132 blocks
 * took 145.2 µs, or 288.5 µs when they started beside a 16-channel all-reduce and nothing in
 * between; an all-reduce issued while such a kernel had a block on every SM started when that
 * kernel ended.
 */
export class SmLedger {
  /** SMs held whole by collectives' blocks. */
  private held = 0;
  /** SMs the resident shared-SM waves landed on, summed over the waves (capped where read). */
  private occupied = 0;

  constructor(private readonly smCount: number) {}

  /** SMs with no block on them: a kernel's blocks take one SM each before any gets a second. */
  emptySms(): number {
    const free = this.smCount - this.held;
    return Math.max(0, free - Math.min(free, this.occupied));
  }

  /** A collective's `blocks` took an empty SM each. */
  hold(blocks: number): void {
    this.held += blocks;
  }

  release(blocks: number): void {
    this.held -= blocks;
  }

  /** A shared-SM wave of `blocks` lands: the SMs it takes (to give back when it ends). */
  land(blocks: number): number {
    const sms = Math.max(0, Math.min(blocks, this.smCount - this.held));
    this.occupied += sms;
    return sms;
  }

  leave(sms: number): void {
    this.occupied -= sms;
  }

  /**
   * How many times slower a wave of `blocks` (of `warpsPerBlock` warps) landing now runs for its
   * whole life than an even spread over every SM would, `residentWarps` counting every warp on
   * the SMs with it. While collectives hold SMs it spreads over the others, its busiest SM
   * holding ceil(blocks / free SMs) where an even spread gives blocks / SMs (at least one).
   * Otherwise its busiest SM holds ceil(blocks / SMs) of them beside its share of the others,
   * which slows it only past `saturationWarps` (the warps an SM issues for at full speed): a
   * last wave of 7.03 blocks of 8 warps per SM lasts as long as a full one of 8 (the overlap
   * blog's kernel of 4,096 blocks on an H100 or H200: 45.5 µs measured in every issue-order
   * lesson, 43.7 µs before this), while 133 blocks of one warp take no longer than 132.
   */
  crowding(
    blocks: number,
    warpsPerBlock: number,
    residentWarps: number,
    saturationWarps: number,
  ): number {
    if (this.held > 0) {
      const free = Math.max(1, this.smCount - this.held);
      return Math.ceil(blocks / free) / Math.max(1, blocks / this.smCount);
    }
    const evenPerSm = residentWarps / this.smCount;
    const othersPerSm = (residentWarps - blocks * warpsPerBlock) / this.smCount;
    const busiestPerSm = othersPerSm + Math.ceil(blocks / this.smCount) * warpsPerBlock;
    const slowdown = (warps: number): number => Math.max(1, warps / saturationWarps);
    return slowdown(busiestPerSm) / slowdown(evenPerSm);
  }
}
