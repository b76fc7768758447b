/**
 * A SQLite file that does not follow the file format: names the page (1-based, 0 for the file
 * header) and the byte offset in the file where the reader found the problem.
 */
export class SqliteFormatError extends Error {
  override readonly name = 'SqliteFormatError';

  constructor(
    readonly page: number,
    readonly offset: number,
    readonly problem: string,
  ) {
    super(
      page === 0
        ? `file header, offset ${offset}: ${problem}`
        : `page ${page}, offset ${offset}: ${problem}`,
    );
  }
}
