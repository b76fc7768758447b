/** Recoverable problems, each said once with how often it happened and where it first did. */
export class Warnings {
  private readonly counts = new Map<string, { n: number; where: string | undefined }>();

  add(message: string, where?: string): void {
    const found = this.counts.get(message);
    if (found === undefined) {
      this.counts.set(message, { n: 1, where });
    } else {
      found.n++;
    }
  }

  get size(): number {
    return this.counts.size;
  }

  list(): string[] {
    return [...this.counts].map(([message, { n, where }]) => {
      const at = where === undefined ? '' : n === 1 ? ` (${where})` : ` (first at ${where})`;
      return n === 1 ? `${message}${at}` : `${message}${at} (${n} times)`;
    });
  }
}

/** `n` and its noun, singular for one: "1 range", "3 ranges", counted(2, 'copy', 'copies'). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
