/**
 * `pooltest drivers`: real drivers (asyncpg, psycopg 3, psycopg2, pgjdbc, ruby-pg, node-postgres,
 * postgres.js) through the target, each in its default and its advised configurations, steered
 * with pooltest's holders (drivers/). Exit codes: 0 done (no expectation missed), 1 a result
 * missed its --expect expectation (or, with --strict, something was inconclusive), 2 pooltest
 * could not run.
 */
import { readFileSync } from 'node:fs';
import { parseJsonBytes } from '../engine/record/json-file.js';
import { parseDurationWithUnit } from '../engine/record/time.js';
import { PooltestError } from '../engine/record/errors.js';
import { redactUrl, resolveRelated, resolveTarget } from '../engine/target/target.js';
import { DRIVERS, selectDrivers } from '../drivers/catalogue.js';
import { runDrivers } from '../drivers/run-drivers.js';
import { ServerLogReader } from '../drivers/server-log.js';
import { DRIVER_PROFILES } from '../drivers/profiles.js';
import { renderDriversHtml } from '../reporters/drivers-html.js';
import { renderDriversJunit } from '../reporters/drivers-junit.js';
import { renderDriversMarkdown, renderDriversTerminal } from '../reporters/drivers-text.js';
import { checkOutputPath } from '../reporters/output-file.js';
import { writeOutput } from './outputs.js';
import { parseSubcommandArgs } from './subcommand-args.js';
import type { CliIo } from './run-command.js';

export const DRIVERS_USAGE = `Usage: pooltest drivers [--target HOST:PORT|URL | --stack NAME] [--driver a,b] [--list]
                        [--user U --password P --database D] [--profile NAME] [--expect FILE] [--strict]
                        [--direct HOST:PORT|URL] [--server-log FILE]
                        [--json FILE] [--junit FILE] [--markdown FILE] [--html FILE] [--timeout T]

Runs real drivers through the target, each in its default configuration and in the one its
documentation advises for transaction pooling, and reports per scenario: moved (the driver's
statement was prepared on one backend, its next use runs on another), collision (another
process of the same driver lands on that backend and prepares the same name), cursor (a
server-side cursor with a fetch size). Outcomes: works, retried (only because the driver
retried after a server error), failed, or inconclusive when the landing was not proven.

  --driver a,b    only these drivers (default: all; --list shows them)
  --stack NAME    start a throwaway fixture stack instead of --target (direct,
                  pgbouncer-transaction, pgbouncer-session, ...)
  --profile NAME  expected outcomes: direct, pgbouncer-transaction (PgBouncer 1.18, observed)
  --expect FILE   JSON {"asyncpg/moved@default": "failed", ...} (over the profile's):
                  missed expectations exit 1
  --direct URL    the PostgreSQL behind the target: pooltest's own questions (is another
                  run active?) go there instead of through the pooler
  --server-log F  that PostgreSQL's log (stderr format, log_line_prefix '%m [%p] ...'):
                  errors a driver retried without telling the application are read there
                  and make its result \`retried\` (--stack reads the fixture's own log)
  --html FILE     a page with a sequence diagram per driver scenario

A driver whose runtime or package is missing is skipped with the reason.`;

export async function driversCommand(argv: string[], io: Pick<CliIo, 'stdout' | 'stderr' | 'env'>): Promise<number> {
  const parsed = parseSubcommandArgs(
    argv,
    {
      target: { type: 'string' },
      stack: { type: 'string' },
      user: { type: 'string' },
      password: { type: 'string' },
      database: { type: 'string' },
      driver: { type: 'string' },
      list: { type: 'boolean' },
      expect: { type: 'string' },
      profile: { type: 'string' },
      strict: { type: 'boolean' },
      json: { type: 'string' },
      junit: { type: 'string' },
      markdown: { type: 'string' },
      html: { type: 'string' },
      direct: { type: 'string' },
      'server-log': { type: 'string' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    } as const,
    DRIVERS_USAGE,
    io.stdout,
  );
  if (parsed === null) return 0;
  const v = parsed.values;
  if (v.list) {
    io.stdout(listDrivers());
    return 0;
  }
  const selected = selectDrivers(
    (v.driver ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  if ('unknown' in selected)
    throw new PooltestError(
      'BAD_ARGUMENTS',
      `unknown driver ${selected.unknown.join(', ')}; known: ${DRIVERS.map((d) => d.id).join(', ')}`,
    );
  let expect: Record<string, string> | undefined;
  if (v.profile !== undefined) {
    const profile = DRIVER_PROFILES[v.profile];
    if (!profile)
      throw new PooltestError(
        'BAD_ARGUMENTS',
        `unknown drivers profile "${v.profile}"; known: ${Object.keys(DRIVER_PROFILES).join(', ')}`,
      );
    expect = profile();
  }
  // An --expect file overrides the profile's entries it names.
  if (v.expect !== undefined) expect = { ...expect, ...readExpectations(v.expect) };
  for (const file of [v.json, v.junit, v.markdown, v.html]) if (file !== undefined) checkOutputPath(file);
  // A log asked for by name that cannot be read is refused before anything starts.
  if (v['server-log'] !== undefined) {
    const log = ServerLogReader.open(v['server-log']);
    if ('unreadable' in log) throw new PooltestError('BAD_ARGUMENTS', `--server-log: ${log.unreadable}`);
  }
  const stepMs = v.timeout !== undefined ? parseDurationWithUnit(v.timeout, '--timeout') : 10_000;
  if (v.stack !== undefined && v.target !== undefined)
    throw new PooltestError('BAD_ARGUMENTS', '--stack and --target exclude each other');
  let stop: (() => Promise<void>) | null = null;
  try {
    let targetText = v.target;
    let directText = v.direct;
    let serverLog = v['server-log'];
    if (v.stack !== undefined) {
      const { startStack, STACK_NAMES, SOURCE_STACK_NAMES } = await import('../fixtures/stack.js');
      // The Debian packages' stacks and the poolers built from their release tarballs.
      const known = [...STACK_NAMES, ...SOURCE_STACK_NAMES];
      const name = known.find((n) => n === v.stack);
      if (!name) throw new PooltestError('BAD_ARGUMENTS', `unknown stack "${v.stack}"; known: ${known.join(', ')}`);
      const stack = await startStack(name);
      stop = () => stack.stop();
      targetText = stack.target.url();
      directText ??= stack.postgres.url();
      serverLog ??= stack.postgres.logFile;
    }
    if (targetText === undefined && !io.env.PGHOST && !io.env.PGPORT)
      throw new PooltestError('BAD_ARGUMENTS', `pooltest drivers needs --target or --stack\n\n${DRIVERS_USAGE}`);
    const warn = (message: string): void => io.stderr(`pooltest: warning: ${message}\n`);
    const target = resolveTarget(
      { target: targetText, user: v.user, password: v.password, database: v.database },
      io.env,
      warn,
    );
    // What --direct does not spell out (user, password, database) comes from the target, as for a run.
    const direct = directText !== undefined ? resolveRelated(directText, target, io.env, warn) : null;
    const report = await runDrivers(target, {
      drivers: selected,
      direct,
      ...(serverLog !== undefined ? { serverLog } : {}),
      stepMs,
      ...(expect ? { expect } : {}),
      onResult: (r) => io.stderr(`  ${r.id}: ${r.outcome ?? 'inconclusive'}\n`),
    });
    // Redacted like every report: a driver's message could quote a connection string.
    if (v.json !== undefined) writeOutput(v.json, `${redactUrl(JSON.stringify(report, null, 2))}\n`);
    if (v.junit !== undefined) writeOutput(v.junit, renderDriversJunit(report));
    if (v.markdown !== undefined) writeOutput(v.markdown, renderDriversMarkdown(report));
    if (v.html !== undefined) writeOutput(v.html, renderDriversHtml(report));
    io.stdout(renderDriversTerminal(report));
    const failed = report.results.some((r) => r.verdict === 'fail');
    const unsure = report.results.some((r) => r.verdict === 'inconclusive');
    return failed || (v.strict === true && unsure) ? 1 : 0;
  } finally {
    await stop?.();
  }
}

function listDrivers(): string {
  const w = Math.max(...DRIVERS.map((d) => d.id.length));
  return (
    DRIVERS.map((d) => {
      const configs = d.configs.map((c) => `${c.name}${c.advised ? ' (advised)' : ''}`).join('; ');
      return `${d.id.padEnd(w)}  ${d.title}\n${''.padEnd(w)}  names: ${d.statementNames}\n${''.padEnd(w)}  configurations: ${configs}\n${''.padEnd(w)}  cursor: ${d.cursor ?? 'none'}`;
    }).join('\n') + '\n'
  );
}

/** An --expect file: an object of result id to outcome label. */
export function readExpectations(file: string): Record<string, string> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new PooltestError('BAD_ARGUMENTS', `--expect ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const read = parseJsonBytes(bytes);
  if (!read.ok) throw new PooltestError('BAD_ARGUMENTS', `--expect ${file} ${read.problem}`);
  const value = read.value;
  const labels = new Set(['works', 'retried', 'failed']);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new PooltestError('BAD_ARGUMENTS', `--expect ${file}: an object of "driver/scenario@config": outcome`);
  for (const [id, outcome] of Object.entries(value))
    if (typeof outcome !== 'string' || !labels.has(outcome) || !/^[^/]+\/(moved|collision|cursor)@.+$/.test(id))
      throw new PooltestError(
        'BAD_ARGUMENTS',
        `--expect ${file}: "${id}": ${JSON.stringify(outcome)} is not driver/scenario@config: works|retried|failed`,
      );
  return value as Record<string, string>;
}
