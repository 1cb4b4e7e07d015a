/**
 * Text for a terminal line. Server and pooler messages may hold line breaks, tabs or control
 * characters (an escape sequence would even restyle the user's terminal), so everything that
 * came from outside is flattened to one printable line before it is padded or cut.
 */
import { CHECK_LABELS } from '../suites/labels.js';

/** One printable line: line breaks and tabs become spaces, other control characters `?`. */
export function oneLine(text: string): string {
  return text.replace(/\r\n|[\r\n\t]/g, ' ').replace(/[\u0000-\u001F\u007F-\u009F]/g, '?');
}

/**
 * A copy of `value` (a report, a diff, a matrix: plain JSON-like data) in which every string,
 * however deep, keys too, is {@link oneLine}. Each terminal renderer passes its input through
 * this once, at its entry, so no field read from a report file or sent by a target (an
 * outcome, a pooler name, a host, an application_name) reaches the terminal with an escape
 * sequence or a line break in it, whichever line of the renderer prints it. Objects that are
 * not plain (none occur in reports) are kept as they are.
 */
export function terminalSafe<T>(value: T): T {
  if (typeof value === 'string') return oneLine(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => terminalSafe(v)) as T;
  if (value !== null && typeof value === 'object') {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [oneLine(k), terminalSafe(v)])) as T;
  }
  return value;
}

export { terminalWidth } from './terminal-env.js';

/** `text` as one line, cut to `width` characters with an ellipsis. */
export function cut(text: string, width: number): string {
  const s = oneLine(text);
  return s.length <= width ? s : `${s.slice(0, width - 1)}…`;
}

/** The longest label of the contract (`one-per-client`, 14 characters). */
const LONGEST_LABEL = Math.max(...Object.values(CHECK_LABELS).flatMap((labels) => labels.map((l) => l.length)));

/**
 * The width of an outcome column headed `header`: the longest label of the vocabulary, so
 * every table of every report lines up the same way, or the widest of `shown` when a value is
 * wider still (a label of a newer pooltest, read from its report).
 */
export function outcomeWidth(header: string, shown: ReadonlyArray<string | null>): number {
  return Math.max(header.length, LONGEST_LABEL, ...shown.map((s) => s?.length ?? 0));
}

/** `text` padded with spaces to at least `width` characters. */
export function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

/**
 * `text` folded at spaces into lines of at most `width` characters, continuation lines
 * indented by `indent` spaces. Evidence and advice are folded, never cut: a verdict's reason
 * must be readable in full on any terminal.
 */
export function wrap(text: string, width: number, indent: number): string {
  const lead = /^ */.exec(text)![0];
  // Split on single spaces so aligned runs of spaces ("advice:   ") survive.
  const words = text
    .replace(/[\r\n\t]+/g, ' ')
    .trim()
    .split(' ');
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    const candidate = line === '' ? `${lead}${word}` : `${line} ${word}`;
    if (candidate.length > width && line !== '') {
      lines.push(line);
      line = `${' '.repeat(indent)}${word}`;
    } else {
      line = candidate;
    }
  }
  if (line !== '') lines.push(line);
  return lines.join('\n');
}
