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
   * How many times slower a wave of `blocks` landing now runs for its whole life than an even
   * spread over every SM (blocks / SMs, at least one) would: its busiest SM holds
   * ceil(blocks / free SMs), the free SMs being those no collective holds. So a last wave of 7.03
   * blocks per SM lasts as long as a full one of 8 (the overlap blog's kernel on an H100 or H200,
   * 4,096 blocks: 45.5 µs measured in every issue-order lesson, 43.7 µs before this).
   */
  crowding(blocks: number): number {
    const free = Math.max(1, this.smCount - this.held);
    return Math.ceil(blocks / free) / Math.max(1, blocks / this.smCount);
  }
}
