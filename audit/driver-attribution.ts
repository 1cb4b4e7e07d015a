/**
 * Whose named prepared statement the audit found in a server log, by its name: asyncpg's
 * `__asyncpg_stmt_N__`, psycopg 3's `_pg3_N`, pgjdbc's `S_N`, Rails' `aN` (drivers/catalogue.ts),
 * or `PGBOUNCER_N`, the name PgBouncer (1.21+, tracking protocol-level statements) gives the
 * server its copy of a client's statement. With the driver known, and a drivers run of the
 * pooler at hand (`--report` of a `pooltest --drivers --json` run, or `--target`, which
 * runs only the drivers found), the finding carries what that driver does
 * through this pooler: the results of its configurations that name statements (the advised
 * ones name none), and the worst of them.
 */
import { readFile } from 'node:fs/promises';
import { driverOfStatement, selectDrivers } from '../drivers/catalogue.js';
import type { DriverResult } from '../drivers/run-drivers.js';
import type { AuditFinding } from './audit-types.js';
import type { TargetWords } from './target-run.js';

/** A finding's driver, as the audit report carries it (`finding.driver`). */
export interface FindingDriver {
  /** `pgjdbc`, ..., or `pgbouncer` for PgBouncer's own `PGBOUNCER_N`. */
  id: string;
  title: string;
  /** The driver's results on the pooler, by result id; absent without a drivers run. */
  outcomes?: Record<string, string | null>;
  /** The worst of them (`failed` > `retried` > `works`; null when none concluded). */
  outcome?: string | null;
  note: string;
}

const PGBOUNCER_NAME = /^PGBOUNCER_\d+$/;

/** The statement name in a named-statement finding's `what` (`named protocol statement "S_1"`). */
function nameOf(what: string): string | null {
  return /^named protocol statement "(.*)"$/.exec(what)?.[1] ?? null;
}

/** The driver a named-statement finding is attributed to, with its outcomes where `results` has them. */
export function attributeDriver(what: string, results: readonly DriverResult[] | null): FindingDriver | null {
  const name = nameOf(what);
  if (name === null) return null;
  if (PGBOUNCER_NAME.test(name))
    return {
      id: 'pgbouncer',
      title: 'PgBouncer (prepared statement tracking)',
      note: "PgBouncer's server-side name for a client's statement: max_prepared_statements is on, and the client's own name is not in the server log",
    };
  const driver = driverOfStatement(name);
  if (!driver) return null;
  const base = { id: driver.id, title: driver.title, note: `named as ${driver.statementNames}` };
  if (results === null) return base;
  // The configurations that name statements are the ones that can leave this name behind.
  const naming = new Set(driver.configs.filter((c) => c.names ?? !c.advised).map((c) => c.name));
  const own = results.filter((r) => r.driver === driver.id && naming.has(r.config));
  if (own.length === 0) return { ...base, note: `${base.note}; the drivers run has no result for it` };
  const outcomes = Object.fromEntries(own.map((r) => [r.id, r.outcome]));
  const rank = ['failed', 'retried', 'works'];
  const worst = rank.find((l) => own.some((r) => r.outcome === l)) ?? null;
  return { ...base, outcomes, outcome: worst };
}

/** The drivers whose names a set of named-statement findings carry (to run them with --target). */
export function attributedDrivers(whats: readonly string[]): string[] {
  const ids = new Set<string>();
  for (const what of whats) {
    const name = nameOf(what);
    const d = name !== null ? driverOfStatement(name) : null;
    if (d) ids.add(d.id);
  }
  return [...ids];
}

/**
 * The driver results of a `--report` file: its `drivers` section (`pooltest --drivers --json`);
 * null when it has none. The file was already read and checked as a report by pooler-behaviour.ts.
 */
export async function driverResultsOfReportFile(path: string): Promise<DriverResult[] | null> {
  try {
    const data = JSON.parse(await readFile(path, 'utf8')) as { drivers?: { results?: unknown } };
    const results = data.drivers?.results;
    return Array.isArray(results) ? (results as DriverResult[]) : null;
  } catch {
    return null;
  }
}

/** `--target`: runs the attributed drivers (only those) through it, bounded per step by `timeoutMs`. */
export async function driverResultsOfTarget(
  words: TargetWords,
  driverIds: readonly string[],
  timeoutMs: number | undefined,
): Promise<DriverResult[] | null> {
  if (driverIds.length === 0) return null;
  const selected = selectDrivers(driverIds);
  if ('unknown' in selected) return null;
  const { runDrivers } = await import('../drivers/run-drivers.js');
  const { wordsTarget } = await import('./target-run.js');
  process.stderr.write(`pooltest audit: running the driver(s) ${driverIds.join(', ')} through --target\n`);
  const report = await runDrivers(wordsTarget(words), {
    drivers: selected,
    ...(timeoutMs !== undefined ? { stepMs: timeoutMs } : {}),
  });
  return report.results;
}

/**
 * The driver results the findings are joined with: `--report`'s drivers section, or, with
 * `--target`, a run of the drivers the named statements belong to; null otherwise.
 */
export async function resultsOfDrivers(
  options: Omit<Partial<TargetWords>, 'target'> & { report?: string; target?: string; timeoutMs?: number },
  tallies: ReadonlyArray<{ what: string }>,
): Promise<DriverResult[] | null> {
  if (options.report !== undefined) return driverResultsOfReportFile(options.report);
  const target = options.target;
  if (target === undefined) return null;
  return driverResultsOfTarget(
    { ...options, target },
    attributedDrivers(tallies.map((t) => t.what)),
    options.timeoutMs,
  );
}

/** `finding` with its driver, when its statement name tells one. */
export function withDriver(finding: AuditFinding, results: readonly DriverResult[] | null): AuditFinding {
  const driver = attributeDriver(finding.what, results);
  return driver ? { ...finding, driver } : finding;
}

/** `pgjdbc (Java): failed on this pooler (pgjdbc/moved@default failed, ...)`, or its naming note. */
export function driverText(d: FindingDriver): string {
  if (d.outcomes === undefined) return `${d.title}: ${d.note}`;
  const each = Object.entries(d.outcomes).map(([id, o]) => `${id} ${o ?? 'inconclusive'}`);
  return `${d.title}: ${d.outcome ?? 'inconclusive'} on this pooler (${each.join(', ')})`;
}
