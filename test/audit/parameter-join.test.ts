/**
 * session/tracked-parameter judges each parameter on its own, and the audit joins a SET of one
 * of them with that parameter's outcome: against the embedded default (PgBouncer 1.18 in
 * transaction mode), TimeZone follows its client, so knex's `SET timezone="UTC"` and
 * sequelize's `SET TIME ZONE INTERVAL ...` are fine there, while IntervalStyle (not tracked
 * before 1.20) breaks. Controls: the same report without the per-parameter facts joins every
 * SET with the check's `leaked`, and the typical behaviour (no report) uses the profile's data.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AuditReport } from '../../audit/audit-types.js';
import type { Report } from '../../engine/types.js';
import { runCli } from '../support/cli.js';
import { runAudit, useScratchDir } from './audit-helpers.js';

const dir = useScratchDir('parameters');
const P = '2026-01-01 10:00:00.000 UTC [4242] app@app LOG:  statement: ';
const LOG = [
  `${P}SET timezone="UTC"`,
  `${P}SET TIME ZONE INTERVAL '+09:00' HOUR TO MINUTE`,
  `${P}SET IntervalStyle = 'iso_8601'`,
  `${P}SET default_transaction_read_only = on`,
  '',
].join('\n');

let log: string;
let report: Report;

beforeAll(async () => {
  log = dir.file('app.log');
  await writeFile(log, LOG);
  // The embedded default: no --target starts a throwaway PostgreSQL and PgBouncer (pool 2).
  // A busy machine may leave a parameter inconclusive: one more run, then the assertions hold.
  for (let attempt = 1; attempt <= 2; attempt++) {
    const run = await runCli(['--only', 'session/tracked-parameter'], { json: true, timeoutMs: 120_000 });
    expect(run.report, run.stderr).not.toBeNull();
    report = run.report!;
    const facts = report.checks[0]!.facts;
    if (
      facts['TimeZone.outcome'] !== null &&
      facts['IntervalStyle.outcome'] !== null &&
      facts['default_transaction_read_only.outcome'] !== null
    )
      break;
  }
}, 250_000);

async function audit(name: string, r: unknown): Promise<AuditReport> {
  const file = dir.file(`${name}.report.json`);
  await writeFile(file, JSON.stringify(r));
  const json = dir.file(`${name}.audit.json`);
  const run = await runAudit(['--log', log, '--report', file, '--json', json]);
  expect([0, 1]).toContain(run.code);
  return JSON.parse(await readFile(json, 'utf8')) as AuditReport;
}

const byWhat = (a: AuditReport, what: string) => a.findings.find((f) => f.what === what);

describe('the embedded default, per parameter', () => {
  test('the report shows an outcome per parameter; the check is leaked, as its worst parameter', () => {
    const check = report.checks.find((c) => c.id === 'session/tracked-parameter')!;
    expect(check.outcome).toBe('leaked');
    expect(check.facts).toMatchObject({
      'TimeZone.outcome': 'tracked',
      'DateStyle.outcome': 'tracked',
      'client_encoding.outcome': 'tracked',
      'standard_conforming_strings.outcome': 'tracked',
      'IntervalStyle.outcome': 'leaked',
      'application_name.outcome': 'leaked',
      'application_name.named': 'tracked',
      'default_transaction_read_only.outcome': 'leaked',
    });
  });

  test("SET default_transaction_read_only breaks, with that parameter's own advice; TimeZone keeps the check's", async () => {
    const a = await audit('read-only', report);
    const readOnly = byWhat(a, 'SET default_transaction_read_only')!;
    expect(readOnly).toMatchObject({ outcome: 'leaked', parameter: 'default_transaction_read_only', breaks: true });
    expect(readOnly.advice).toMatch(
      /leaks on PgBouncer up to 1\.25 in transaction mode.*25006.*track_extra_parameters/,
    );
    // The control: a setting without advice of its own, or one that is fine, has the check's.
    const tz = byWhat(a, 'SET timezone')!;
    expect(tz.advice).not.toBe(readOnly.advice);
    expect(tz.advice).toMatch(/SET LOCAL/);
  });

  test('an audit of SET timezone joined with that report is fine; SET IntervalStyle breaks', async () => {
    const a = await audit('default', report);
    // knex's and sequelize's forms: two statements, both setting TimeZone.
    const tz = a.findings.filter((f) => f.what === 'SET timezone');
    expect(tz).toHaveLength(2);
    for (const f of tz)
      expect(f).toMatchObject({
        check: 'session/tracked-parameter',
        outcome: 'tracked',
        parameter: 'timezone',
        breaks: false,
      });
    const interval = byWhat(a, 'SET intervalstyle')!;
    expect(interval).toMatchObject({ outcome: 'leaked', parameter: 'intervalstyle', breaks: true });
    expect(a.pooler.parameters['session/tracked-parameter']).toMatchObject({
      timezone: 'tracked',
      intervalstyle: 'leaked',
    });
  });

  test('the terminal does not say BREAKS for TimeZone, and the audit exits 0', async () => {
    const file = dir.file('terminal.report.json');
    await writeFile(file, JSON.stringify(report));
    const tzLog = dir.file('tz-only.log');
    await writeFile(
      tzLog,
      LOG.split('\n')
        .filter((l) => !l.includes('IntervalStyle') && !l.includes('read_only'))
        .join('\n'),
    );
    const run = await runAudit(['--log', tzLog, '--report', file]);
    expect(run.stdout).toMatch(/on this pooler, per setting: timezone: tracked -> fine/);
    expect(run.stdout).not.toMatch(/BREAKS/);
    expect(run.code).toBe(0);
  });

  test('control: without per-parameter facts, every SET is joined with the check outcome and breaks', async () => {
    const bare = structuredClone(report);
    for (const c of bare.checks) c.facts = {};
    const a = await audit('bare', bare);
    expect(byWhat(a, 'SET timezone')).toMatchObject({ outcome: 'leaked', parameter: null, breaks: true });
  });
});
