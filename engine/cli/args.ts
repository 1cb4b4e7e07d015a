/**
 * Command-line parsing with Node's own parseArgs. Values are validated here so that a typo
 * ends the run before anything connects, with BAD_ARGUMENTS and exit code 2.
 */
import { parseArgs } from 'node:util';
import { PooltestError } from '../errors.js';

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
       pooltest audit --help

Tells what a PostgreSQL connection pooler does to session state. Without --target, starts a
throwaway PostgreSQL and PgBouncer (transaction mode, pool of 2) and tests that.

Target (PG* environment variables are the defaults, as for psql):
  --target T          host:port or postgres://user@host:port/db?sslmode=...
  --user U  --password P  --database D
  --direct T          the PostgreSQL behind the pooler (baseline and leftover sweep)

What to run and assert:
  --profile NAME      assert a pooler's documented behaviour (see --list-profiles)
  --only IDS          check ids or areas, comma separated (e.g. session/set-leak,locks)
  --skip IDS          the same, to leave out
  --list              print the catalogue of checks
  --list-profiles     print the built-in profiles

Bounds:
  --timeout T         bound for every connection and step: 10s (default), 2500ms, or seconds
  --max-pool N        most backends to count while steering (default 8)

Output:
  --json FILE         write the JSON report
  --verbose           print every recorded step    --quiet   print only the summary
  --no-color          no colours (NO_COLOR is honoured too)

Exit codes: 0 as expected (or nothing asserted), 1 a check failed its expectation or the run
left state behind, 2 pooltest could not run, 130 interrupted.`;

export function parseCli(argv: string[]): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: false,
      options: {
        target: { type: 'string' }, user: { type: 'string', short: 'U' }, password: { type: 'string' }, database: { type: 'string', short: 'd' },
        direct: { type: 'string' }, profile: { type: 'string' }, only: { type: 'string', multiple: true }, skip: { type: 'string', multiple: true },
        json: { type: 'string' }, timeout: { type: 'string' }, 'max-pool': { type: 'string' }, 'no-color': { type: 'boolean' }, color: { type: 'boolean' },
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
    only: list(v.only), skip: list(v.skip), verbose: v.verbose ?? false, quiet: v.quiet ?? false, list: v.list ?? false,
    listProfiles: v['list-profiles'] ?? false, help: v.help ?? false, version: v.version ?? false,
  };
  if (v.target !== undefined) opts.target = v.target;
  if (v.user !== undefined) opts.user = v.user;
  if (v.password !== undefined) opts.password = v.password;
  if (v.database !== undefined) opts.database = v.database;
  if (v.direct !== undefined) opts.direct = v.direct;
  if (v.profile !== undefined) opts.profile = v.profile;
  if (v.json !== undefined) opts.json = v.json;
  if (v.timeout !== undefined) opts.timeoutMs = parseDuration(v.timeout);
  if (v['max-pool'] !== undefined) opts.maxPool = parsePositiveInt(v['max-pool'], '--max-pool');
  if (v['no-color']) opts.color = false;
  else if (v.color) opts.color = true;
  return opts;
}

/** `10s`, `2500ms`, `1.5s`, or a bare number of seconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text.trim());
  if (!m) throw new PooltestError('BAD_ARGUMENTS', `--timeout "${text}" is not a duration like 10s or 2500ms`);
  const ms = m[2] === 'ms' ? Number(m[1]) : Number(m[1]) * 1000;
  if (ms < 100 || ms > 3_600_000) throw new PooltestError('BAD_ARGUMENTS', `--timeout must be between 100ms and 1h, not "${text}"`);
  return Math.round(ms);
}

function parsePositiveInt(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new PooltestError('BAD_ARGUMENTS', `${flag} "${text}" is not a whole number from 1 to 1000`);
  return n;
}
