/** A name search of a tiled trace: a substring, or a regular expression; both ignore case. */
export interface NameQuery {
  readonly q: string;
  readonly regex: boolean;
}

/** Longest part of a name a regular expression tests: a name is tested once, not once per op. */
const testedChars = 512;

/**
 * The test a name must pass. Throws SyntaxError for a regular expression that does not compile
 * (the route checks that before sending the query to a worker).
 */
export function nameTest({ q, regex }: NameQuery): (name: string) => boolean {
  if (!regex) {
    const needle = q.trim().toLowerCase();
    return (name) => name.toLowerCase().includes(needle);
  }
  const pattern = new RegExp(q, 'i');
  return (name) => pattern.test(name.slice(0, testedChars));
}
