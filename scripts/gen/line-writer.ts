import { closeSync, openSync, writeSync } from 'node:fs';

/** Text appended to a file through a buffer of about 1 MiB: the file is never held whole. */
export class LineWriter {
  private readonly fd: number;
  private parts: string[] = [];
  private pending = 0;
  bytes = 0;

  constructor(filePath: string) {
    this.fd = openSync(filePath, 'w');
  }

  write(text: string): void {
    this.parts.push(text);
    this.pending += text.length;
    if (this.pending >= 1 << 20) {
      this.flush();
    }
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  private flush(): void {
    if (this.parts.length > 0) {
      this.bytes += writeSync(this.fd, this.parts.join(''));
      this.parts = [];
      this.pending = 0;
    }
  }
}
