/** A buffer that is not a valid record stream. The message names the batch, record, field and byte. */
export class CodecError extends Error {
  constructor(
    message: string,
    /** Byte offset in the decoded buffer where the problem was found. */
    readonly byteOffset: number,
  ) {
    super(message);
    this.name = 'CodecError';
  }
}
