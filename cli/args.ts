/**
 * The run command's command line, read by its grammar (main-grammar.ts) as every command reads
 * its own (common/command-grammar.ts, over Node's parseArgs). Values are validated here so that
 * a typo ends the run before anything connects, with BAD_ARGUMENTS and exit code 2.
 */
import { parseDuration } from '../engine/record/time.js';
import { PooltestError } from '../engine/record/errors.js';
import { didYouMean } from '../common/command-args.js';
import { parseCommand } from '../common/command-grammar.js';
import { renderHelp } from '../common/command-help.js';
import { MAIN_GRAMMAR } from './main-grammar.js';
import { checkSpawnable } from './spawn.js';

export interface CliOptions {
  /** `--target`, or a connection string given to `-d` (psql: a URL or keyword=value pairs). */
  target?: string;
  /** psql's `-h`: a host name or a Unix socket directory. */
  host?: string;
  /** psql's `-p`. */
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  direct?: string;
  profile?: string;
  only: string[];
  skip: string[];
  json?: string;
  junit?: string;
  markdown?: string;
  /** The self-contained HTML report (`--html`). */
  html?: string;
  /** Keep no copy under .pooltest/runs/ (`--no-store`). */
  store: boolean;
  /** A second endpoint to run the catalogue against and compare with (`--compare`). */
  compare?: string;
  /** A vendor's expectations file (`--expect`). */
  expect?: string;
  /** `--strict`: inconclusive checks and an unfinished sweep fail the run (exit 1). */
  strict: boolean;
  /** `--fail-on-breaks`: an outcome that breaks an application fails the run (exit 1). */
  failOnBreaks: boolean;
  /** `--run-wedging`: run the checks known to wedge the identified pooler too (engine/execute/known-wedge.ts). */
  runWedging: boolean;
  /** A pooler to start in containers (`--spawn`). */
  spawn?: string;
  timeoutMs?: number;
  maxPool?: number;
  color?: boolean;
  verbose: boolean;
  quiet: boolean;
  list: boolean;
  listProfiles: boolean;
  /** `--list-profiles NAME`: show that profile only. */
  profileName?: string;
  /** `--drivers`: after the checks, every installed driver through the target (`pooltest drivers`). */
  drivers: boolean;
  help: boolean;
  version: boolean;
}

/** The main command's help, generated from its grammar (main-grammar.ts). */
export const USAGE = renderHelp(MAIN_GRAMMAR).trimEnd();

/** Parses the run command's arguments (not the subcommands'); BAD_ARGUMENTS on anything wrong. */
export function parseCli(argv: string[]): CliOptions {
  const parsed = parseCommand(MAIN_GRAMMAR, argv);
  const s = parsed.shared;
  const given = (name: string): string[] => parsed.own.filter((o) => o.name === name).flatMap((o) => o.values);
  const last = (name: string): string | undefined => given(name).at(-1);
  const has = (name: string): boolean => parsed.own.some((o) => o.name === name);
  const list = (xs: string[]): string[] =>
    xs
      .flatMap((x) => x.split(','))
      .map((x) => x.trim())
      .filter(Boolean);
  const opts: CliOptions = {
    only: list(given('only')),
    skip: list(given('skip')),
    store: s.store,
    strict: has('strict'),
    failOnBreaks: has('fail-on-breaks'),
    runWedging: has('run-wedging'),
    verbose: has('verbose'),
    quiet: s.quiet,
    list: has('list'),
    listProfiles: has('list-profiles'),
    drivers: has('drivers'),
    help: s.help,
    version: s.version,
  };
  if (parsed.positionals.length > 0) {
    if (!opts.listProfiles || parsed.positionals.length > 1)
      throw new PooltestError(
        'BAD_ARGUMENTS',
        `unexpected argument '${parsed.positionals[opts.listProfiles ? 1 : 0]}': only --list-profiles takes a name (give the target with --target or -h/-p)`,
      );
    opts.profileName = parsed.positionals[0]!;
  }
  if (parsed.rest !== null)
    throw new PooltestError('BAD_ARGUMENTS', "unexpected argument '--': pooltest runs no command (see pooltest watch)");
  // The shared words, read as every command reads them (common/command-grammar.ts).
  for (const key of ['target', 'host', 'port', 'user', 'password', 'database', 'direct', 'profile'] as const)
    if (s[key] !== undefined) Object.assign(opts, { [key]: s[key] });
  for (const key of ['json', 'junit', 'markdown', 'html'] as const) if (s[key] !== undefined) opts[key] = s[key];
  if (s.timeoutMs !== undefined) opts.timeoutMs = s.timeoutMs;
  if (s.color !== undefined) opts.color = s.color;
  const compare = last('compare');
  if (compare !== undefined) opts.compare = compare;
  const expect = last('expect');
  if (expect !== undefined) opts.expect = expect;
  const spawn = last('spawn');
  if (spawn !== undefined) opts.spawn = spawn;
  const maxPool = last('max-pool');
  if (maxPool !== undefined) opts.maxPool = parsePositiveInt(maxPool, '--max-pool');
  checkCombinations(opts);
  return opts;
}

/** The nearest known option to a mistyped one (common/command-args.ts). */
export { didYouMean };

/** Flags that contradict each other end the run here, before anything starts. */
function checkCombinations(o: CliOptions): void {
  if (o.spawn !== undefined && o.target !== undefined) {
    throw new PooltestError(
      'BAD_ARGUMENTS',
      '--spawn starts its own target: leave out --target (or leave out --spawn to test yours)',
    );
  }
  if (o.expect !== undefined && o.profile !== undefined) {
    throw new PooltestError(
      'BAD_ARGUMENTS',
      `--expect and --profile both set expectations: put "extends": "${o.profile}" in ${o.expect} instead`,
    );
  }
  if (o.spawn !== undefined) checkSpawnable(o.spawn);
  // An empty value would silently mean libpq's defaults (localhost:5432); --target and
  // --direct are checked with the shared words.
  if (o.compare !== undefined && o.compare.trim() === '')
    throw new PooltestError('BAD_ARGUMENTS', '--compare is empty: give host:port or a postgres:// URL');
  if (o.quiet && o.verbose)
    throw new PooltestError('BAD_ARGUMENTS', '--quiet and --verbose contradict each other: pick one');
}

function parsePositiveInt(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new PooltestError('BAD_ARGUMENTS', `${flag} "${text}" is not a whole number from 1 to 1000`);
  return n;
}

export { parseDuration };
