/**
 * `--target URL`: the audit runs the checks its findings depend on against a real PgBouncer in
 * transaction mode (pool of 2) and joins what they observe. A session-mode PgBouncer is the
 * control: the same statements must not break there.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { AuditReport } from '../../audit/audit-types.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { runAudit, useScratchDir } from './audit-helpers.js';

let transaction: Stack;
let session: Stack;
const dir = useScratchDir('target');
let app: string;

beforeAll(async () => {
  app = dir.file('app.sql');
  await writeFile(app, "SET statement_timeout = '5s';\nSELECT pg_advisory_lock(1);\n");
  transaction = await startStack('pgbouncer-transaction');
  session = await startStack('pgbouncer-session', { postgresFixture: transaction.postgres });
}, 120_000);

afterAll(async () => {
  await session?.stop();
  await transaction?.stop();
});

async function auditAgainst(stack: Stack): Promise<{ code: number; report: AuditReport; output: string }> {
  const json = dir.file(`${stack.name}.json`);
  const run = await runAudit(['--sql', app, '--target', stack.target.url(), '--json', json]);
  const text = run.code === 2 ? '{}' : await readFile(json, 'utf8');
  const output = run.stdout + run.stderr + text;
  expect(output, 'the pooler password must never be printed').not.toContain(stack.target.password);
  if (run.code === 2) throw new Error(run.stderr);
  return { code: run.code, report: JSON.parse(text) as AuditReport, output };
}

test('against PgBouncer in transaction mode the SET leaks and the audit exits 1', async () => {
  const { code, report } = await auditAgainst(transaction);
  expect(report.pooler.basis).toBe('target');
  expect(report.findings.find((f) => f.check === 'session/set-leak')).toMatchObject({
    outcome: 'leaked',
    breaks: true,
    basis: 'target',
  });
  expect(code).toBe(1);
}, 120_000);

test('against PgBouncer in session mode the same statements keep working: exit 0', async () => {
  const { code, report } = await auditAgainst(session);
  expect(report.findings.find((f) => f.check === 'session/set-leak')).toMatchObject({
    outcome: 'session',
    breaks: false,
  });
  expect(report.findings.find((f) => f.check === 'locks/advisory-session')!.breaks).not.toBe(true);
  expect(code).toBe(0);
}, 120_000);
