/**
 * A name cut where a narrow column may wrap it: after `_ . / : -` and before `#`, so
 * "train_step#12" wraps as "train_ / step / #12", never inside a word. Joined, the pieces are
 * the name.
 */
export function namePieces(name: string): string[] {
  return name.split(/(?<=[_./:-])(?=.)|(?<=.)(?=#)/);
}
