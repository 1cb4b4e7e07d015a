/**
 * Command-line parsing with Node's own parseArgs. Values are validated here so that a typo
 * ends the run before anything connects, with BAD_ARGUMENTS and exit code 2.
 */
import { parseArgs } from 'node:util';
import { parseDuration } from '../engine/record/time.js';
import { PooltestError } from '../engine/record/errors.js';
import { isKeywordValue } from '../engine/target/conninfo.js';
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

export const USAGE = `Usage: pooltest [--target HOST:PORT | postgres://...] [options]
       pooltest diff OLD.json NEW.json [--markdown FILE] [--json FILE]
       pooltest matrix [NAME=]REPORT.json... [--markdown FILE] [--html FILE] [--json FILE]
       pooltest audit --help
       pooltest watch --upstream URL [-- COMMAND...]   (see pooltest watch --help)

Tells what a PostgreSQL connection pooler does to session state. Without --target, starts a
throwaway PostgreSQL and PgBouncer (transaction mode, pool of 2) and tests that.

Target (psql's options and PG* environment variables, as for psql; the options win):
  --target T          host:port, postgres://user@host:port/db?sslmode=..., libpq pairs
                      ('host=db port=6432 user=app'), or a Unix socket directory (/tmp)
  -h, --host HOST     host name or Unix socket directory (PGHOST; host=%2Ftmp in a URL)
  -p, --port PORT     port (PGPORT; default 5432)
  -U, --user U        user name, also --username (PGUSER; default: the operating-system user)
  -d, --database D    database name, also --dbname (PGDATABASE; default: the user name); a
                      URL or keyword=value string here is the whole connection string
  --password P        (or PGPASSWORD, or in the URL). On a machine others log in to, set
                      PGPASSWORD instead: any user can read a password given in --password
                      or a URL from the process list (ps), while a process's environment is
                      readable only by its own user and root. With none given, the line
                      for the target in ~/.pgpass (or PGPASSFILE), as libpq reads it
  --direct T          the PostgreSQL behind the pooler (baseline and leftover sweep)
  --spawn NAME        EXPERIMENTAL: start NAME in containers and test it (needs Docker and
                      testcontainers; NAME: pgbouncer). What it lacks: only PgBouncer; the
                      image (edoburu/pgbouncer:latest, postgres:16) is not pinned to a digest
                      (pin your own with POOLTEST_SPAWN_PGBOUNCER_IMAGE / _POSTGRES_IMAGE);
                      pooltest's own tests have never run the catalogue through it

What to run and assert:
  --profile NAME      assert a pooler's documented behaviour (see --list-profiles)
  --expect FILE       assert your own expectations (JSON; may extend a profile)
  --compare T         also run against T (the baseline, e.g. direct Postgres or today's
                      pooler) and report what changes for the application going to --target
  --strict            fail (exit 1) when a check is inconclusive, the sweep could not
                      finish, or every check was skipped; JUnit then reports inconclusive
                      checks as failures
  --only IDS          check ids or areas, comma separated (e.g. session/set-leak,locks)
  --skip IDS          the same, to leave out
  --list              print the catalogue of checks with the outcome labels of each
                      (with --json FILE: the same as JSON)
  --list-profiles [NAME]  print the built-in profiles, or the one named

Bounds:
  --timeout T         bound for every connection and step: 10s (default), 2500ms, or seconds
  --max-pool N        most backends to count while steering (default 8)

Output:
  --json FILE         write the JSON report (schema/report.schema.json)
  --junit FILE        write JUnit XML for CI
  --markdown FILE     write a Markdown table for a pull request or a docs page
  --html FILE         write a self-contained HTML report with sequence diagrams
  --drivers           also run the real drivers through the target (see pooltest drivers
                      --help); the JSON report gains a "drivers" section
  --no-store          keep no copy under .pooltest/runs/<time>/ (kept by default)
  --verbose           print every recorded step    --quiet   print failures and the summary
  --no-color          no colours (NO_COLOR is honoured too)
  -?, --help          this help          -V, --version   the version

Verdicts: pass / fail against an expectation (--profile, --expect); observed when nothing
was expected (the outcome is shown with whether it breaks an application); inconclusive when
pooltest could not force or prove the situation; skipped when the check cannot run here.

Exit codes:
  0    every asserted check as expected, or nothing asserted, and the sweep found nothing
       left behind (inconclusive checks, and a sweep that could not finish, change it only
       under --strict)
  1    a check failed its expectation, the run left state behind, (with --compare) something
       breaks, or (with --strict) a check was inconclusive, the sweep could not finish or
       every check was skipped
  2    pooltest could not run (bad arguments, target unreachable, authentication, ...)
  130  interrupted by SIGINT or SIGTERM (after cleanup: the check stops, the sweep runs)
  129  the same after SIGHUP (a dropped SSH session), 131 after SIGQUIT`;

/** The run command's options, for parseArgs and for suggestions. */
const OPTIONS = {
  target: { type: 'string' },
  // psql's short options: -h is the host there (help is -? and --help), -p the port.
  host: { type: 'string', short: 'h' },
  port: { type: 'string', short: 'p' },
  user: { type: 'string', short: 'U' },
  username: { type: 'string' },
  password: { type: 'string' },
  database: { type: 'string', short: 'd' },
  dbname: { type: 'string' },
  direct: { type: 'string' },
  profile: { type: 'string' },
  only: { type: 'string', multiple: true },
  skip: { type: 'string', multiple: true },
  json: { type: 'string' },
  junit: { type: 'string' },
  markdown: { type: 'string' },
  html: { type: 'string' },
  'no-store': { type: 'boolean' },
  compare: { type: 'string' },
  expect: { type: 'string' },
  strict: { type: 'boolean' },
  spawn: { type: 'string' },
  timeout: { type: 'string' },
  'max-pool': { type: 'string' },
  'no-color': { type: 'boolean' },
  color: { type: 'boolean' },
  verbose: { type: 'boolean', short: 'v' },
  quiet: { type: 'boolean', short: 'q' },
  list: { type: 'boolean' },
  'list-profiles': { type: 'boolean' },
  drivers: { type: 'boolean' },
  help: { type: 'boolean', short: '?' },
  version: { type: 'boolean', short: 'V' },
} as const;

/** Parses the run command's arguments (not `diff`, `matrix` or `audit`); BAD_ARGUMENTS on anything wrong. */
export function parseCli(argv: string[]): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: joinNegativeValues(argv),
      // Only `--list-profiles NAME` takes one; refused below otherwise.
      allowPositionals: true,
      options: OPTIONS,
    });
  } catch (err) {
    throw new PooltestError('BAD_ARGUMENTS', `${explainParseError(err)}\n\n${USAGE}`);
  }
  const v = parsed.values;
  const list = (xs: string[] | undefined): string[] =>
    (xs ?? [])
      .flatMap((x) => x.split(','))
      .map((x) => x.trim())
      .filter(Boolean);
  const opts: CliOptions = {
    only: list(v.only),
    skip: list(v.skip),
    store: !v['no-store'],
    strict: v.strict ?? false,
    verbose: v.verbose ?? false,
    quiet: v.quiet ?? false,
    list: v.list ?? false,
    listProfiles: v['list-profiles'] ?? false,
    drivers: v.drivers ?? false,
    help: v.help ?? false,
    version: v.version ?? false,
  };
  if (parsed.positionals.length > 0) {
    if (!opts.listProfiles || parsed.positionals.length > 1)
      throw new PooltestError(
        'BAD_ARGUMENTS',
        `unexpected argument '${parsed.positionals[opts.listProfiles ? 1 : 0]}': only --list-profiles takes a name (give the target with --target or -h/-p)\n\n${USAGE}`,
      );
    opts.profileName = parsed.positionals[0]!;
  }
  if (v.target !== undefined) opts.target = v.target;
  if (v.host !== undefined) opts.host = v.host;
  if (v.port !== undefined) opts.port = parsePort(v.port);
  const user = v.user ?? v.username;
  if (user !== undefined) opts.user = user;
  if (v.password !== undefined) opts.password = v.password;
  const database = v.database ?? v.dbname;
  if (database !== undefined) {
    // psql: a dbname with an `=` or a postgres:// prefix is a whole connection string.
    if (/^postgres(ql)?:\/\//i.test(database) || isKeywordValue(database)) {
      if (opts.target !== undefined)
        throw new PooltestError(
          'BAD_ARGUMENTS',
          '-d holds a connection string and --target gives another: give one of them',
        );
      opts.target = database;
    } else opts.database = database;
  }
  if (v.direct !== undefined) opts.direct = v.direct;
  if (v.profile !== undefined) opts.profile = v.profile;
  if (v.json !== undefined) opts.json = v.json;
  if (v.junit !== undefined) opts.junit = v.junit;
  if (v.markdown !== undefined) opts.markdown = v.markdown;
  if (v.html !== undefined) opts.html = v.html;
  if (v.compare !== undefined) opts.compare = v.compare;
  if (v.expect !== undefined) opts.expect = v.expect;
  if (v.spawn !== undefined) opts.spawn = v.spawn;
  if (v.timeout !== undefined) opts.timeoutMs = parseDuration(v.timeout);
  if (v['max-pool'] !== undefined) opts.maxPool = parsePositiveInt(v['max-pool'], '--max-pool');
  if (v['no-color']) opts.color = false;
  else if (v.color) opts.color = true;
  checkCombinations(opts);
  return opts;
}

/**
 * `--timeout -5` as `--timeout=-5`: parseArgs takes a value that starts with a dash for an
 * option and refuses it as "ambiguous", followed by the whole help, where the flag's own
 * range check has a one-line answer (as `--max-pool 0` gets).
 */
function joinNegativeValues(argv: string[]): string[] {
  const takesValue = new Set<string>();
  for (const [name, o] of Object.entries(OPTIONS) as [string, { type: string; short?: string }][])
    if (o.type === 'string') {
      takesValue.add(`--${name}`);
      if (o.short) takesValue.add(`-${o.short}`);
    }
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    if (takesValue.has(arg) && next !== undefined && /^-\d/.test(next)) {
      // `-p-5`: a short option's value follows it directly.
      out.push(arg.startsWith('--') ? `${arg}=${next}` : `${arg}${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** parseArgs' message, or for a mistyped option a short one with the nearest real option. */
function explainParseError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const unknown =
    (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
      ? /Unknown option '([^']+)'/.exec(message)?.[1]
      : undefined;
  // psql's habit: -h names the host; help is --help or -?.
  if (/'-h, --host <value>' argument missing/.test(message))
    return `${message} (as in psql, -h is the host: help is --help or -?)`;
  if (!unknown) return message;
  const guess = didYouMean(unknown.replace(/^-+/, ''), OPTION_NAMES);
  return `unknown option ${unknown}${guess ? `; did you mean --${guess}?` : ''}`;
}

/** Every long option, for suggestions. */
const OPTION_NAMES = Object.keys(OPTIONS);

/**
 * The candidate nearest to `typed` by edit distance, when near enough to be a typo (at most a
 * third of its letters wrong). Hand-written: a dozen lines, where none of the installed
 * packages offers it.
 */
export function didYouMean(typed: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Math.max(2, Math.floor(typed.length / 3)) + 1;
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
  for (const [flag, value] of [
    ['--target', o.target],
    ['--direct', o.direct],
    ['--compare', o.compare],
  ] as const) {
    // An empty value would silently mean libpq's defaults (localhost:5432).
    if (value !== undefined && value.trim() === '')
      throw new PooltestError(
        'BAD_ARGUMENTS',
        `${flag} is empty: give host:port or a postgres:// URL${flag === '--target' ? ' (or leave --target out to test a throwaway PgBouncer)' : ''}`,
      );
  }
  if (o.quiet && o.verbose)
    throw new PooltestError('BAD_ARGUMENTS', '--quiet and --verbose contradict each other: pick one');
}

/** `10s`, `2500ms`, `1.5s`, or a bare number of seconds. */

function parsePort(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 65535)
    throw new PooltestError('BAD_ARGUMENTS', `-p/--port "${text}" is not a TCP port (1 to 65535)`);
  return n;
}

function parsePositiveInt(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new PooltestError('BAD_ARGUMENTS', `${flag} "${text}" is not a whole number from 1 to 1000`);
  return n;
}

export { parseDuration };
