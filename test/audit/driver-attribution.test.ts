/**
 * The audit attributes a driver's named prepared statements in a server log to that driver by
 * the name (drivers/catalogue.ts: `S_N` pgjdbc, `__asyncpg_stmt_N__` asyncpg, `_pg3_N`
 * psycopg 3; `PGBOUNCER_N` is PgBouncer's own), and with a `--report` that carries a drivers
 * run, the finding carries that driver's outcomes on the pooler: recorded drivers runs through
 * PgBouncer 1.18 transaction mode and direct PostgreSQL must give different answers.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { expect, test } from 'vitest';
import type { AuditReport } from '../../audit/audit-types.js';
import { attributeDriver } from '../../audit/driver-attribution.js';
import type { DriverResult } from '../../drivers/run-drivers.js';
import { runAudit, useScratchDir } from './audit-helpers.js';

const dir = useScratchDir('drivers');
const P = '2026-01-01 10:00:00.000 UTC [77] app@app ';
const LOG = [
  `${P}LOG:  execute S_1: SELECT id FROM orders WHERE id = $1`,
  `${P}LOG:  execute __asyncpg_stmt_1a__: SELECT name FROM users WHERE id = $1`,
  `${P}LOG:  execute _pg3_0: SELECT total FROM carts WHERE id = $1`,
  `${P}LOG:  execute PGBOUNCER_3: SELECT 3`,
  `${P}LOG:  execute orders_by_day: SELECT count(*) FROM orders`,
  '',
].join('\n');

/** A pooltest report of PgBouncer 1.18 transaction mode with the drivers run of `stack`. */
async function reportWithDrivers(stack: string): Promise<string> {
  const read = async (rel: string) => JSON.parse(await readFile(new URL(rel, import.meta.url), 'utf8')) as object;
  const report = await read('../judges/reports/pgbouncer-transaction.report.json');
  const drivers = await read(`../recorded/drivers-${stack}.json`);
  const file = dir.file(`report-${stack}.json`);
  await writeFile(file, JSON.stringify({ ...report, drivers }));
  return file;
}

async function audited(extra: string[]): Promise<{ report: AuditReport; stdout: string }> {
  const log = dir.file('app.log');
  const json = dir.file(`${Math.random().toString(36).slice(2)}.json`);
  await writeFile(log, LOG);
  const run = await runAudit(['--log', log, '--json', json, ...extra]);
  expect([0, 1, 3], run.stderr).toContain(run.code);
  return { report: JSON.parse(await readFile(json, 'utf8')) as AuditReport, stdout: run.stdout };
}

const driverOf = (r: AuditReport, name: string) =>
  r.findings.find((f) => f.what === `named protocol statement "${name}"`)?.driver;

test('named statements are attributed to their driver by name; a name no driver uses is not', async () => {
  const { report, stdout } = await audited([]);
  expect(driverOf(report, 'S_1')?.id).toBe('pgjdbc');
  expect(driverOf(report, '__asyncpg_stmt_1a__')?.id).toBe('asyncpg');
  expect(driverOf(report, '_pg3_0')?.id).toBe('psycopg');
  expect(driverOf(report, 'PGBOUNCER_3')?.id).toBe('pgbouncer');
  expect(driverOf(report, 'orders_by_day')).toBeUndefined();
  // Without a drivers run there is no outcome to carry, only the name's owner.
  expect(driverOf(report, 'S_1')?.outcomes).toBeUndefined();
  expect(stdout).toMatch(/driver: pgjdbc \(Java\): named as S_<n>/);
});

test("with --report carrying a drivers run, the finding carries the driver's outcomes there", async () => {
  const { report, stdout } = await audited(['--report', await reportWithDrivers('pgbouncer-transaction')]);
  const jdbc = driverOf(report, 'S_1')!;
  expect(jdbc.outcome).toBe('failed');
  expect(jdbc.outcomes?.['pgjdbc/collision@default']).toBe('failed');
  // Only the configurations that name statements: the advised prepareThreshold=0 names none.
  expect(Object.keys(jdbc.outcomes ?? {}).some((id) => id.includes('prepareThreshold=0'))).toBe(false);
  expect(driverOf(report, '__asyncpg_stmt_1a__')?.outcome).toBe('failed');
  expect(stdout).toMatch(/driver: pgjdbc \(Java\): failed on this pooler \(pgjdbc\/moved@default retried/);
});

test('control: the drivers run of direct PostgreSQL gives `works` for the same statements', async () => {
  const { report } = await audited(['--report', await reportWithDrivers('direct')]);
  expect(driverOf(report, 'S_1')?.outcome).toBe('works');
  expect(driverOf(report, '_pg3_0')?.outcome).toBe('works');
});

test("pgx's and PDO's names are theirs, joined only with their configurations that name statements", () => {
  const result = (id: string, outcome: string): DriverResult =>
    ({ id, driver: id.split('/')[0], config: id.split('@')[1], outcome }) as DriverResult;
  const results = [
    result('pgx/moved@default', 'failed'),
    result('pgx/moved@prefer_simple_protocol=true', 'works'),
    // Not advised, but no names: pgx v4 without a cache prepares only the unnamed statement.
    result('pgx/moved@statement_cache_capacity=0', 'works'),
    result('pdo-pgsql/collision@default', 'retried'),
    result('pdo-pgsql/collision@ATTR_EMULATE_PREPARES=true', 'works'),
  ];
  const pgx = attributeDriver('named protocol statement "lrupsc_1_0"', results);
  expect(pgx).toMatchObject({ id: 'pgx', outcome: 'failed', outcomes: { 'pgx/moved@default': 'failed' } });
  expect(Object.keys(pgx?.outcomes ?? {})).toEqual(['pgx/moved@default']);
  const pdo = attributeDriver('named protocol statement "pdo_stmt_00000001"', results);
  expect(pdo).toMatchObject({ id: 'pdo-pgsql', outcome: 'retried' });
  expect(Object.keys(pdo?.outcomes ?? {})).toEqual(['pdo-pgsql/collision@default']);
  // Control: a cursor's name is no statement's, and tells no driver.
  expect(attributeDriver('named protocol statement "pdo_crsr_00000001"', results)).toBeNull();
});
