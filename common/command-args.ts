/**
 * How `pooltest audit` and `pooltest watch` read their command lines: node:util's parseArgs
 * splits the arguments (`--flag=value` or `--flag value`, `-h`, the `--` that ends our options),
 * as cli/ does for the main command, and this module adds what both commands promise on top
 * of it, each refusal a BAD_ARGUMENTS naming the flag:
 * - a value that looks like an option is a missing value (`--json --markdown x` does not write
 *   a file called `--markdown`), except `-` (stdin) and negative numbers, which the flag's own
 *   check names as bad;
 * - a `files` option takes every following argument up to the next option, so a shell glob
 *   works (`--sql migrations/*.sql`);
 * - an unknown option or a stray argument is refused, never ignored.
 * parseArgs runs non-strict so that these messages stay pooltest's own, with the command's
 * --help named; its tokens keep the order the user wrote.
 */
import { parseArgs } from 'node:util';
import { PooltestError } from '../engine/record/errors.js';

/** One option of a command: a value, a list of files, or a switch. */
export interface OptionSpec {
  type: 'string' | 'files' | 'boolean';
  short?: string;
}

/** One option as the user gave it, in order. */
export interface GivenOption {
  /** The option's name as declared (`max-statement-bytes`). */
  name: string;
  /** As written (`--max-statement-bytes`, `-h`), for messages. */
  flag: string;
  /** Its value (`string`), or its files (`files`); none for a switch. */
  values: string[];
}

export interface CommandLine {
  options: GivenOption[];
  /** Arguments that are not options, where `stray` accepted them. */
  positionals: string[];
  /** What followed a `--`, untouched; null when there was none. */
  rest: string[] | null;
}

/**
 * Reads `argv` for `pooltest <command>` against `specs`. `stray(arg)` says why a positional
 * argument is not wanted (each command knows where arguments belong), or null to keep it as one
 * of the command's own arguments (`diff OLD NEW`). `unknown(flag)` words the refusal of an
 * option not in `specs`; by default the one wording every command shares ({@link unknownOption}).
 */
export function readCommandLine(
  command: string,
  argv: string[],
  specs: Readonly<Record<string, OptionSpec>>,
  stray: (arg: string) => string | null,
  unknown: (flag: string) => string = (flag) => unknownOption(command, flag, Object.keys(specs)),
): CommandLine {
  const { tokens } = parseArgs({
    args: argv,
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: Object.fromEntries(
      Object.entries(specs).map(([name, s]) => [
        name,
        {
          type: s.type === 'boolean' ? ('boolean' as const) : ('string' as const),
          ...(s.short ? { short: s.short } : {}),
        },
      ]),
    ),
  });
  const options: GivenOption[] = [];
  const positionals: string[] = [];
  let rest: string[] | null = null;
  /** The `files` option that positionals after it still belong to. */
  let collecting: GivenOption | null = null;
  for (const [i, token] of tokens.entries()) {
    if (token.kind === 'option-terminator') {
      rest = tokens.slice(i + 1).map((t) => (t.kind === 'positional' ? t.value : ''));
      break;
    }
    if (token.kind === 'positional') {
      if (collecting !== null) {
        collecting.values.push(token.value);
        continue;
      }
      const why = stray(token.value);
      if (why !== null) throw new PooltestError('BAD_ARGUMENTS', why);
      positionals.push(token.value);
      continue;
    }
    collecting = null;
    const spec = Object.hasOwn(specs, token.name) ? specs[token.name]! : undefined;
    if (spec === undefined) throw new PooltestError('BAD_ARGUMENTS', unknown(token.rawName));
    const given: GivenOption = { name: token.name, flag: token.rawName, values: [] };
    if (spec.type === 'boolean') {
      if (token.inlineValue === true) throw new PooltestError('BAD_ARGUMENTS', `${token.rawName} takes no value`);
    } else if (token.value === undefined || (!token.inlineValue && isOption(token.value))) {
      throw new PooltestError(
        'BAD_ARGUMENTS',
        spec.type === 'files' ? `${token.rawName} needs at least one file` : `${token.rawName} needs a value`,
      );
    } else {
      given.values.push(token.value);
      if (spec.type === 'files') collecting = given;
    }
    options.push(given);
  }
  return { options, positionals, rest };
}

/**
 * The refusal of an option a command does not know, worded the same by every command: the
 * option as typed, the nearest known one when it is near enough to be a typo, and where the
 * command's options are listed. (It was parseArgs' own text in some commands, whose hint had
 * an unbalanced quote, and a shorter one in others.)
 */
export function unknownOption(command: string, flag: string, known: readonly string[]): string {
  const guess = didYouMean(flag.replace(/^-+/, ''), known);
  const help = command === '' ? 'pooltest --help' : `pooltest ${command} --help`;
  return `unknown option ${flag}${guess !== null ? `; did you mean --${guess}?` : ''} (see ${help})`;
}

/**
 * The candidate nearest to `typed` by edit distance, when near enough to be a typo (at most a
 * third of its letters wrong). Hand-written: a dozen lines, where none of the installed
 * packages offers it.
 */
export function didYouMean(typed: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Math.max(2, Math.floor(typed.length / 3)) + 1;
  // A single letter (`-x`) is near every short name: no guess is better than a wrong one.
  if (typed.length < 2) return null;
  for (const c of candidates) {
    const d = editDistance(typed.toLowerCase(), c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/**
 * `-` alone is a value (stdin), not an option, and so is a negative number: `--max-statement-
 * bytes -1` is a bad value, which the flag's own check names, not a missing one.
 */
function isOption(arg: string): boolean {
  return arg.startsWith('-') && arg !== '-' && !/^-\d/.test(arg);
}

/** `value` as a positive whole number, or BAD_ARGUMENTS naming `flag` and the value. */
export function positiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new PooltestError('BAD_ARGUMENTS', `${flag} must be a positive whole number, not "${value}"`);
  return n;
}
