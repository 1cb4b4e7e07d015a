/**
 * `pooltest audit --log ... --target URL`: a named statement in the log whose name tells its
 * driver (Rails' `a1` over ruby-pg) gets that driver run through the target, now, and the
 * finding carries its outcome there: ruby-pg's `prepare` fails through PgBouncer 1.18
 * transaction mode. Only the drivers found are run (ruby-pg: two configurations, seconds).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { AuditReport } from '../../audit/audit-types.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { runAudit, useScratchDir } from './audit-helpers.js';

const dir = useScratchDir('drivers-target');
let stack: Stack;
beforeAll(async () => {
  stack = await startStack('pgbouncer-transaction');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

test("--target runs the named statement's driver and the finding carries its outcome on the pooler", async (ctx) => {
  const log = dir.file('app.log');
  const json = dir.file('audit.json');
  await writeFile(
    log,
    '2026-01-01 10:00:00.000 UTC [77] app@app LOG:  execute a1: SELECT * FROM users WHERE id = $1\n',
  );
  const run = await runAudit(['--log', log, '--target', stack.target.url(), '--json', json]);
  expect([0, 1], run.stderr).toContain(run.code);
  const report = JSON.parse(await readFile(json, 'utf8')) as AuditReport;
  const driver = report.findings.find((f) => f.what === 'named protocol statement "a1"')?.driver;
  expect(driver?.id).toBe('ruby-pg');
  // Only the configuration that names statements (prepare), not the advised exec_params; its
  // batch (pipeline mode) prepares too.
  expect(Object.keys(driver?.outcomes ?? {}).sort()).toEqual([
    'ruby-pg/batch@prepare',
    'ruby-pg/collision@prepare',
    'ruby-pg/moved@prepare',
  ]);
  const outcomes = Object.values(driver?.outcomes ?? {});
  // A label needs the landing proven: both inconclusive (a busy machine) proves nothing either
  // way, and the test is skipped with that, never passed.
  if (outcomes.every((o) => o === null)) ctx.skip('both ruby-pg results inconclusive');
  for (const o of outcomes) expect(['failed', null]).toContain(o);
  expect(driver?.outcome).toBe('failed');
}, 180_000);
