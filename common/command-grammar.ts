/**
 * A command's grammar as data: which shared options (common/option-table.ts) apply to it, its
 * own options, and the prose of its help. From it come both the parser's table and the
 * `--help` text, so the two cannot drift apart, and every command reads the shared options with
 * the same code and the same refusals (parseCommand). The help is rendered in command-help.ts.
 */
import { PooltestError } from '../engine/record/errors.js';
import { isKeywordValue } from '../engine/target/conninfo.js';
import { parseDuration, parseDurationWithUnit } from '../engine/record/time.js';
import { readCommandLine, unknownOption, type GivenOption, type OptionSpec } from './command-args.js';
import {
  OUTPUT_NAMES,
  SHARED_OPTIONS,
  STDOUT,
  type OptionRow,
  type OutputName,
  type SharedName,
} from './option-table.js';

/** An option of one command only, listed in the help under `section`. */
export interface OwnRow extends OptionRow {
  section: string;
}

export interface CommandGrammar {
  /** `''` for the main command, else the subcommand's word (`drivers`). */
  command: string;
  /** The usage lines, without `Usage: `. */
  synopsis: readonly string[];
  /** What the command does, before the options. */
  about: string;
  /** The shared options that apply: `true` for the table's wording, or this command's own. */
  shared: Partial<Record<SharedName, true | string>>;
  own: Readonly<Record<string, OwnRow>>;
  /** The sections in help order: the own sections' names and the shared groups'. */
  sections: readonly string[];
  /** A shared option listed under another heading than its group's (`--profile` with what to run). */
  placeOf?: Partial<Record<SharedName, string>>;
  /** Said under a shared group's heading (what the connection words are for here). */
  groupNotes?: Partial<Record<string, string>>;
  /** After the options (exit codes, remarks), as written. */
  notes: string;
  /**
   * Why no output may go to standard output here (`-`), or null when any one may. Given a
   * reason, `--json -` is refused with it rather than writing a file named `-`.
   */
  noStdout: string | null;
  /**
   * `seconds`: a bare `--timeout 5` is five seconds (the main command, always so); `unit`: the
   * unit must be written, where a bare number once meant milliseconds (engine/record/time.ts).
   */
  bareTimeout: 'seconds' | 'unit';
  /** What a positional argument is, or why none is wanted (null: keep it). */
  stray(arg: string): string | null;
}

/** The shared options as read, the same for every command. */
export interface SharedArgs {
  target?: string;
  host?: string;
  port?: number;
  user?: string;
  database?: string;
  password?: string;
  direct?: string;
  json?: string;
  junit?: string;
  markdown?: string;
  html?: string;
  /** false for --no-store. */
  store: boolean;
  quiet: boolean;
  /** false for --no-color, true for --color; undefined lets NO_COLOR and the terminal decide. */
  color?: boolean;
  timeoutMs?: number;
  profile?: string;
  help: boolean;
  version: boolean;
}

export interface ParsedCommand {
  shared: SharedArgs;
  /** The command's own options, in the order written. */
  own: GivenOption[];
  positionals: string[];
  /** After `--`; null when there was none. */
  rest: string[] | null;
}

/** The parser's table of `grammar`: its shared options (with their aliases) and its own. */
export function optionSpecs(grammar: CommandGrammar): Record<string, OptionSpec> {
  const specs: Record<string, OptionSpec> = {};
  for (const name of Object.keys(grammar.shared) as SharedName[]) {
    const row = SHARED_OPTIONS[name];
    const spec: OptionSpec = { type: row.type, ...(row.short ? { short: row.short } : {}) };
    specs[name] = spec;
    for (const alias of row.aliases ?? []) specs[alias] = { type: row.type };
  }
  for (const [name, row] of Object.entries(grammar.own))
    specs[name] = { type: row.type, ...(row.short ? { short: row.short } : {}) };
  return specs;
}

/** The long name an alias stands for (`username` is `user`). */
function canonical(name: string): string {
  for (const [shared, row] of Object.entries(SHARED_OPTIONS)) if (row.aliases?.includes(name)) return shared;
  return name;
}

/** Reads `argv` by `grammar`; BAD_ARGUMENTS for anything wrong, worded alike in every command. */
export function parseCommand(grammar: CommandGrammar, argv: string[]): ParsedCommand {
  const specs = optionSpecs(grammar);
  const where = grammar.command === '' ? 'pooltest' : `pooltest ${grammar.command}`;
  const unknown = (flag: string): string => {
    const name = flag.startsWith('--') ? canonical(flag.slice(2)) : shortName(flag.slice(1));
    // A shared option this command has no use for: said so, not "unknown".
    if (name !== null && Object.hasOwn(SHARED_OPTIONS, name) && !Object.hasOwn(specs, name))
      return `${flag} does not apply to ${where} (see ${where} --help)`;
    return unknownOption(grammar.command, flag, Object.keys(specs));
  };
  let line;
  try {
    line = readCommandLine(grammar.command, argv, specs, (arg) => grammar.stray(arg), unknown);
  } catch (err) {
    // psql's habit, now every command's: -h names the host, help is --help or -?.
    if (err instanceof PooltestError && /^-h needs a value$/.test(err.message))
      throw new PooltestError('BAD_ARGUMENTS', `${err.message} (as in psql, -h is the host: help is --help or -?)`);
    throw err;
  }
  const shared: Reading = { store: true, quiet: false, help: false, version: false };
  const own: GivenOption[] = [];
  for (const given of line.options) {
    const name = canonical(given.name);
    if (Object.hasOwn(grammar.shared, name)) readShared(shared, name as SharedName, given, grammar);
    else own.push(given);
  }
  checkShared(shared, grammar);
  return { shared, own, positionals: line.positionals, rest: line.rest };
}

function shortName(letter: string): string | null {
  for (const [name, row] of Object.entries(SHARED_OPTIONS)) if (row.short === letter) return name;
  return null;
}

/** While reading: a connection string given to `-d`, which becomes the target once all is read. */
interface Reading extends SharedArgs {
  connectionString?: string;
}

function readShared(into: Reading, name: SharedName, given: GivenOption, grammar: CommandGrammar): void {
  const value = given.values[0]!;
  switch (name) {
    case 'port':
      into.port = parsePort(value);
      return;
    case 'database':
      // psql: a dbname with an `=` or a postgres:// prefix is a whole connection string.
      if (/^postgres(ql)?:\/\//i.test(value) || isKeywordValue(value)) into.connectionString = value;
      else into.database = value;
      return;
    case 'timeout':
      into.timeoutMs =
        grammar.bareTimeout === 'seconds' ? parseDuration(value, given.flag) : parseDurationWithUnit(value, given.flag);
      return;
    case 'no-store':
      into.store = false;
      return;
    case 'no-color':
      into.color = false;
      return;
    case 'color':
      into.color ??= true;
      return;
    case 'quiet':
    case 'help':
    case 'version':
      into[name] = true;
      return;
    case 'target':
    case 'host':
    case 'user':
    case 'password':
    case 'direct':
    case 'json':
    case 'junit':
    case 'markdown':
    case 'html':
    case 'profile':
      into[name] = value;
  }
}

/** What holds across options: empty endpoints, and where the outputs go. */
function checkShared(s: Reading, grammar: CommandGrammar): void {
  if (s.connectionString !== undefined) {
    if (s.target !== undefined)
      throw new PooltestError(
        'BAD_ARGUMENTS',
        '-d holds a connection string and --target gives another: give one of them',
      );
    s.target = s.connectionString;
    delete s.connectionString;
  }
  for (const [flag, value] of [
    ['--target', s.target],
    ['--direct', s.direct],
  ] as const) {
    // An empty value would silently mean libpq's defaults (localhost:5432).
    if (value !== undefined && value.trim() === '')
      throw new PooltestError(
        'BAD_ARGUMENTS',
        `${flag} is empty: give host:port or a postgres:// URL${flag === '--target' && grammar.command === '' ? ' (or leave --target out to test a throwaway PgBouncer)' : ''}`,
      );
  }
  const toStdout = OUTPUT_NAMES.filter((o) => s[o] === STDOUT);
  if (toStdout.length > 0 && grammar.noStdout !== null)
    throw new PooltestError('BAD_ARGUMENTS', `--${toStdout[0]} -: ${grammar.noStdout}`);
  // Two documents on one stream could not be told apart by whoever reads it.
  if (toStdout.length > 1)
    throw new PooltestError(
      'BAD_ARGUMENTS',
      `--${toStdout[0]} - and --${toStdout[1]} - both write to standard output: give one of them a file`,
    );
}

/** The output written to standard output (`-`), if any: the terminal view then goes to stderr. */
export function stdoutOutput(s: Pick<SharedArgs, OutputName>): OutputName | null {
  return OUTPUT_NAMES.find((o) => s[o] === STDOUT) ?? null;
}

function parsePort(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 65535)
    throw new PooltestError('BAD_ARGUMENTS', `-p/--port "${text}" is not a TCP port (1 to 65535)`);
  return n;
}
