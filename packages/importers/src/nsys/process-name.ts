/**
 * A process name fit to show, from a name that may be a whole command line (an nsys JSON
 * CommEvent's `Command`, some exports' PROCESSES.name): the executable's base name, never its
 * arguments, which can carry secrets. The first token is the executable, quoted when its path
 * has spaces (`"/opt/my env/bin/python3" train.py` → `python3`). A name without arguments that
 * does not look like a path is kept whole, because kernel threads' names hold slashes
 * (`kworker/0:1`, `irq/46-nvidia`). A name with spaces and no path (`UVM Tools Event Queue`)
 * cannot be told from a command and keeps its first word.
 */
export function executableName(command: string): string {
  const text = command.trim();
  const quote = text[0];
  let token: string;
  if (quote === '"' || quote === "'") {
    const close = text.indexOf(quote, 1);
    token = text.slice(1, close < 0 ? undefined : close);
  } else {
    token = text.split(/\s/, 1)[0] ?? '';
  }
  // Quoted, or followed by arguments: a command, whose first token is a path or a bare name.
  const isCommand = token !== text;
  const isPath = /^([/~]|\.\.?[/\\]|[A-Za-z]:[/\\])/.test(token) || token.includes('\\');
  if (!isCommand && !isPath) {
    return token;
  }
  const base = token.split(/[/\\]/).pop() ?? '';
  return base === '' ? token : base;
}
