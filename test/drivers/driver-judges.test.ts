/**
 * The drivers' judges on recorded runs (test/recorded/drivers-*.json, written by
 * `npm run docs:drivers -- --record test/recorded`), against outcomes written by hand from the
 * issue's hand experiments, and mutations of those records that must come out differently.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { schemaValidator } from '../support/ajv.js';
import { judgeCollision, judgeDriverRun, judgeMovedUse, recordedPhases } from '../../drivers/judge.js';
import { driverLogNotice } from '../../drivers/agent-process.js';
import { driverOfStatement } from '../../drivers/catalogue.js';
import { DRIVER_PROFILES } from '../../drivers/profiles.js';
import { readExpectations } from '../../cli/drivers-command.js';
import type { DriversReport } from '../../drivers/run-drivers.js';
import type { StepRecord } from '../../engine/types.js';
import { SCHEMA_FILE } from '../support/report-schema.js';

const load = (stack: string) =>
  JSON.parse(readFileSync(new URL(`../recorded/drivers-${stack}.json`, import.meta.url), 'utf8')) as DriversReport;
const tx = load('pgbouncer-transaction');
const direct = load('direct');

function record(report: DriversReport, driver: string, config: string): StepRecord[] {
  const r = report.records.find((x) => x.driver === driver && x.config === config);
  if (!r) throw new Error(`no record of ${driver} ${config}`);
  return structuredClone(r.steps);
}
const stepOf = (steps: StepRecord[], tag: string) => {
  const s = steps.find((x) => x.tag === tag);
  if (!s) throw new Error(`no ${tag}`);
  return s;
};

describe('PgBouncer 1.18 transaction mode, as the issue saw it by hand', () => {
  const cases: Array<[string, string, Record<string, string>]> = [
    ['asyncpg', 'default', { moved: 'failed', collision: 'failed', cursor: 'failed' }],
    ['asyncpg', 'statement_cache_size=0', { moved: 'works', collision: 'works', cursor: 'works' }],
    ['psycopg', 'default', { moved: 'failed', collision: 'failed' }],
    ['psycopg', 'prepare_threshold=None', { moved: 'works', collision: 'works', cursor: 'works' }],
    ['pgjdbc', 'default', { moved: 'retried', collision: 'failed' }],
    ['pgjdbc', 'default, autocommit off', { collision: 'failed' }],
    ['pgjdbc', 'prepareThreshold=0', { moved: 'works', collision: 'works', cursor: 'works' }],
    ['pgjdbc', 'prepareThreshold=0, autocommit off', { moved: 'works', collision: 'works', cursor: 'works' }],
    ['psycopg2', 'default', { moved: 'works', collision: 'works', cursor: 'works' }],
    ['node-postgres', 'named', { moved: 'failed', collision: 'failed' }],
    ['node-postgres', 'unnamed', { moved: 'works', collision: 'works' }],
  ];
  test.each(cases)('%s %s', (driver, config, want) => {
    const judged = judgeDriverRun(record(tx, driver, config), tx.discovery as never, ['moved', 'collision', 'cursor']);
    for (const [scenario, outcome] of Object.entries(want))
      expect(judged[scenario as 'moved']?.outcome, `${scenario}: ${judged[scenario as 'moved']?.reason}`).toBe(outcome);
  });

  test("asyncpg's failure carries the driver's exception and the server's SQLSTATE verbatim", () => {
    const j = judgeMovedUse(record(tx, 'asyncpg', 'default'), tx.discovery as never, 'moved');
    expect(j.reason).toMatch(
      /26000 InvalidSQLStatementNameError: prepared statement "__asyncpg_stmt_\w+__" does not exist/,
    );
  });
});

test('against direct PostgreSQL every driver works in every configuration', () => {
  expect(direct.results.length).toBeGreaterThanOrEqual(30);
  for (const r of direct.records) {
    const judged = judgeDriverRun(r.steps, direct.discovery as never, recordedPhases(r.steps));
    for (const [scenario, j] of Object.entries(judged))
      expect(j?.outcome, `${r.driver} ${r.config} ${scenario}: ${j?.reason}`).toBe('works');
  }
});

describe('controls: the same records, changed, come out differently', () => {
  test("pgjdbc's retried rests on its log: without the driver's log lines it reads as works", () => {
    const steps = record(tx, 'pgjdbc', 'default');
    stepOf(steps, 'moved:A.readback').notices = [];
    expect(judgeMovedUse(steps, tx.discovery as never, 'moved').outcome).toBe('works');
  });

  test("A's next use on the backend the observer holds is no evidence: inconclusive", () => {
    const steps = record(tx, 'asyncpg', 'statement_cache_size=0');
    const b1 = stepOf(steps, 'moved:A.create').pid;
    const next = stepOf(steps, 'moved:A.readback');
    next.pid = b1;
    (next.results[0] ?? [])[0]!.pid = b1;
    expect(judgeMovedUse(steps, tx.discovery as never, 'moved').outcome).toBeNull();
  });

  test('a warm-up that ran on two backends steered nothing: inconclusive, even where it later failed', () => {
    const steps = record(tx, 'asyncpg', 'default');
    const runs = stepOf(steps, 'moved:A.create').results[0] ?? [];
    runs[0]!.pid = 1;
    const j = judgeMovedUse(steps, tx.discovery as never, 'moved');
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/several backends/);
  });

  test("B away from A's backend proves nothing through a transaction pooler; on direct it cannot meet A", () => {
    const steps = record(tx, 'psycopg', 'prepare_threshold=None');
    for (const r of stepOf(steps, 'collision:B.create').results[0] ?? []) r.pid = 7;
    expect(judgeCollision(steps, tx.discovery as never).outcome).toBeNull();
    expect(judgeCollision(steps, direct.discovery as never).outcome).toBe('works');
  });

  test('an unanswered step, or an error without SQLSTATE (the agent died), is inconclusive', () => {
    const steps = record(tx, 'asyncpg', 'default');
    const next = stepOf(steps, 'moved:A.readback');
    next.timedOut = true;
    expect(judgeMovedUse(steps, tx.discovery as never, 'moved').outcome).toBeNull();
    next.timedOut = false;
    next.error = { message: 'the agent is not running' };
    expect(judgeMovedUse(steps, tx.discovery as never, 'moved').outcome).toBeNull();
  });
});

test("pgjdbc's log line becomes the server's message and SQLSTATE", () => {
  const line =
    ' <=BE ErrorMessage(ERROR: prepared statement "S_1" does not exist\n  Location: File: prepare.c\n  Server SQLState: 26000)';
  expect(driverLogNotice(line)).toEqual({
    severity: 'driver-log',
    code: '26000',
    message: 'prepared statement "S_1" does not exist',
  });
});

test('an --expect file with an unknown label or id is refused with BAD_ARGUMENTS', () => {
  const file = `${process.env.TMPDIR ?? '/tmp'}/pooltest-drivers-expect-${process.pid}.json`;
  for (const bad of ['{"asyncpg/moved@default": "leaked"}', '{"asyncpg@default": "works"}', '[]']) {
    writeFileSync(file, bad);
    expect(() => readExpectations(file)).toThrow(/--expect/);
  }
  rmSync(file, { force: true });
});

test('the recorded drivers reports match the drivers section of the published schema', () => {
  const ajv = schemaValidator();
  const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as { $id: string };
  ajv.addSchema(schema);
  const validate = ajv.getSchema(`${schema.$id}#/$defs/driversReport`);
  for (const report of [tx, direct]) expect(validate?.(report), JSON.stringify(validate?.errors)).toBe(true);
});

test("a statement's name tells its driver (for the audit), and an ordinary name tells none", () => {
  expect(driverOfStatement('__asyncpg_stmt_1a__')?.id).toBe('asyncpg');
  expect(driverOfStatement('_pg3_0')?.id).toBe('psycopg');
  expect(driverOfStatement('S_12')?.id).toBe('pgjdbc');
  expect(driverOfStatement('lrupsc_1_0')?.id).toBe('pgx');
  expect(driverOfStatement('stmtcache_0f3c9a5e7b1d2c4e6f8a0b1c3d5e7f9a1b3c5d7e9f0a2b4c')?.id).toBe('pgx');
  expect(driverOfStatement('pdo_stmt_0000001a')?.id).toBe('pdo-pgsql');
  // A cursor is no statement: pdo_crsr_<n> names none.
  expect(driverOfStatement('pdo_crsr_00000001')).toBeNull();
  expect(driverOfStatement('orders_by_day')).toBeNull();
});

test('the built-in drivers profiles are what the recorded runs observed, id for id', () => {
  for (const [name, report] of [
    ['pgbouncer-transaction', tx],
    ['direct', direct],
  ] as const) {
    const expected = DRIVER_PROFILES[name]!();
    // A result the profile leaves open (it varies between runs) is compared by its presence only.
    const observed = Object.fromEntries(report.results.filter((r) => r.id in expected).map((r) => [r.id, r.outcome]));
    expect(observed, name).toEqual(expected);
    // Left open: results that vary between runs (drivers/profiles.ts says why, each).
    const open = report.results.filter((r) => !(r.id in expected)).map((r) => r.id);
    expect(open.sort(), name).toEqual(
      name === 'direct'
        ? []
        : [
            'asyncpg/batch@statement_cache_size=0',
            'pdo-pgsql/collision@default',
            'pgx/batch@default',
            'postgres.js/collision@default',
            'sqlalchemy/collision@default',
          ],
    );
  }
  // Control: the profiles differ, so the comparison can fail.
  expect(DRIVER_PROFILES.direct!()).not.toEqual(DRIVER_PROFILES['pgbouncer-transaction']!());
});
