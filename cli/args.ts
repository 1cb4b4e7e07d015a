/**
 * Command-line parsing with Node's own parseArgs. Values are validated here so that a typo
 * ends the run before anything connects, with BAD_ARGUMENTS and exit code 2.
 */
import { parseArgs } from 'node:util';
import { parseDuration } from '../engine/time.js';
import { PooltestError } from '../engine/errors.js';
import { checkSpawnable } from './spawn.js';

export interface CliOptions {
  target?: string;
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
  /** A pooler to start in containers (`--spawn`). */
  spawn?: string;
  timeoutMs?: number;
  maxPool?: number;
  color?: boolean;
  verbose: boolean;
  quiet: boolean;
  list: boolean;
  listProfiles: boolean;
  help: boolean;
  version: boolean;
}

export const USAGE = `Usage: pooltest [--target HOST:PORT | postgres://...] [options]
       pooltest diff OLD.json NEW.json [--markdown FILE] [--json FILE]
       pooltest matrix [NAME=]REPORT.json... [--markdown FILE] [--html FILE] [--json FILE]
       pooltest audit --help

Tells what a PostgreSQL connection pooler does to session state. Without --target, starts a
throwaway PostgreSQL and PgBouncer (transaction mode, pool of 2) and tests that.

Target (PG* environment variables are the defaults, as for psql):
  --target T          host:port or postgres://user@host:port/db?sslmode=...
  --user U  --password P  --database D
  --direct T          the PostgreSQL behind the pooler (baseline and leftover sweep)
  --spawn NAME        start NAME in containers and test it (needs Docker and testcontainers;
                      NAME: pgbouncer)

What to run and assert:
  --profile NAME      assert a pooler's documented behaviour (see --list-profiles)
  --expect FILE       assert your own expectations (JSON; may extend a profile)
  --compare T         also run against T (the baseline, e.g. direct Postgres or today's
                      pooler) and report what changes for the application going to --target
  --only IDS          check ids or areas, comma separated (e.g. session/set-leak,locks)
  --skip IDS          the same, to leave out
  --list              print the catalogue of checks
  --list-profiles     print the built-in profiles

Bounds:
  --timeout T         bound for every connection and step: 10s (default), 2500ms, or seconds
  --max-pool N        most backends to count while steering (default 8)

Output:
  --json FILE         write the JSON report (schema/report.schema.json)
  --junit FILE        write JUnit XML for CI
  --markdown FILE     write a Markdown table for a pull request or a docs page
  --html FILE         write a self-contained HTML report with sequence diagrams
  --no-store          keep no copy under .pooltest/runs/<time>/ (kept by default)
  --verbose           print every recorded step    --quiet   print failures and the summary
  --no-color          no colours (NO_COLOR is honoured too)

Exit codes: 0 as expected (or nothing asserted), 1 a check failed its expectation, the run
left state behind, or (with --compare) something breaks, 2 pooltest could not run,
130 interrupted.`;

/** Parses the run command's arguments (not `diff`, `matrix` or `audit`); BAD_ARGUMENTS on anything wrong. */
export function parseCli(argv: string[]): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: false,
      options: {
        target: { type: 'string' }, user: { type: 'string', short: 'U' }, password: { type: 'string' }, database: { type: 'string', short: 'd' },
        direct: { type: 'string' }, profile: { type: 'string' }, only: { type: 'string', multiple: true }, skip: { type: 'string', multiple: true },
        json: { type: 'string' }, junit: { type: 'string' }, markdown: { type: 'string' }, html: { type: 'string' }, 'no-store': { type: 'boolean' },
        compare: { type: 'string' }, expect: { type: 'string' }, spawn: { type: 'string' }, timeout: { type: 'string' }, 'max-pool': { type: 'string' }, 'no-color': { type: 'boolean' }, color: { type: 'boolean' },
        verbose: { type: 'boolean', short: 'v' }, quiet: { type: 'boolean', short: 'q' }, list: { type: 'boolean' }, 'list-profiles': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' },
      },
    });
  } catch (err) {
    throw new PooltestError('BAD_ARGUMENTS', `${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
  }
  const v = parsed.values;
  const list = (xs: string[] | undefined): string[] => (xs ?? []).flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean);
  const opts: CliOptions = {
    only: list(v.only), skip: list(v.skip), store: !v['no-store'], verbose: v.verbose ?? false, quiet: v.quiet ?? false, list: v.list ?? false,
    listProfiles: v['list-profiles'] ?? false, help: v.help ?? false, version: v.version ?? false,
  };
  if (v.target !== undefined) opts.target = v.target;
  if (v.user !== undefined) opts.user = v.user;
  if (v.password !== undefined) opts.password = v.password;
  if (v.database !== undefined) opts.database = v.database;
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

/** Flags that contradict each other end the run here, before anything starts. */
function checkCombinations(o: CliOptions): void {
  if (o.spawn !== undefined && o.target !== undefined) {
    throw new PooltestError('BAD_ARGUMENTS', '--spawn starts its own target: leave out --target (or leave out --spawn to test yours)');
  }
  if (o.expect !== undefined && o.profile !== undefined) {
    throw new PooltestError('BAD_ARGUMENTS', `--expect and --profile both set expectations: put "extends": "${o.profile}" in ${o.expect} instead`);
  }
  if (o.spawn !== undefined) checkSpawnable(o.spawn);
  if (o.quiet && o.verbose) throw new PooltestError('BAD_ARGUMENTS', '--quiet and --verbose contradict each other: pick one');
}

/** `10s`, `2500ms`, `1.5s`, or a bare number of seconds. */

function parsePositiveInt(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new PooltestError('BAD_ARGUMENTS', `${flag} "${text}" is not a whole number from 1 to 1000`);
  return n;
}

export { parseDuration };
