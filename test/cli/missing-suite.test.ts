/**
 * A check whose suite file cannot run must still appear in the report, as inconclusive with
 * the reason, never vanish: a missing row would read as "nothing to see". The test runs a copy
 * of the built CLI in which one suite file throws when it is loaded.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { REPO } from '../support/cli.js';
import { assertValidReport } from '../support/report-schema.js';
import type { Report } from '../../engine/types.js';

let stack: Stack;
let copy: string;

beforeAll(async () => {
  stack = await startStack('pgbouncer-transaction');
  copy = mkdtempSync(path.join(os.tmpdir(), 'pooltest-broken-'));
  cpSync(path.join(REPO, 'dist'), path.join(copy, 'dist'), { recursive: true });
  cpSync(path.join(REPO, 'package.json'), path.join(copy, 'package.json'));
  symlinkSync(path.join(REPO, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  writeFileSync(
    path.join(copy, 'dist/suites/session/set-leak.test.js'),
    "throw new Error('this suite cannot load');\n",
  );
});
afterAll(async () => {
  await stack?.stop();
  if (copy) rmSync(copy, { recursive: true, force: true });
});

function runBroken(extra: string[]): { res: ReturnType<typeof spawnSync>; report: Report; junit: string } {
  const json = path.join(copy, 'report.json');
  const junit = path.join(copy, 'junit.xml');
  const res = spawnSync(
    process.execPath,
    [
      path.join(copy, 'dist/cli/main.js'),
      '--target',
      stack.target.url(),
      '--only',
      'session/set-leak,session/set-local',
      '--profile',
      'pgbouncer-transaction',
      '--json',
      json,
      '--junit',
      junit,
      '--no-store',
      ...extra,
    ],
    {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 120_000,
    },
  );
  const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
  assertValidReport(report);
  return { res, report, junit: readFileSync(junit, 'utf8') };
}

test('a suite that fails to load is reported as not run, and the other checks still run', () => {
  const { res, report, junit } = runBroken([]);
  const byId = Object.fromEntries(report.checks.map((c) => [c.id, c]));
  expect(Object.keys(byId).sort()).toEqual(['session/set-leak', 'session/set-local']);
  expect(byId['session/set-leak']).toMatchObject({ outcome: null, verdict: 'inconclusive', expected: 'leaked' });
  expect(byId['session/set-leak']!.reason).toMatch(/not run/);
  expect(byId['session/set-local']).toMatchObject({ outcome: 'scoped', verdict: 'pass' });
  // Without --strict, an inconclusive check does not change the exit code (INTERPRETING.md section 6).
  expect(res.status).toBe(0);
  expect(report.summary).toMatchObject({ strict: false, exitCode: 0, inconclusive: 1, pass: 1 });
  expect(junit).toMatch(/<skipped message="inconclusive: not run/);
});

test('--strict: the same run with an inconclusive check exits 1, and JUnit reports it as a failure with the reason', () => {
  const { res, report, junit } = runBroken(['--strict']);
  expect(report.summary).toMatchObject({ strict: true, exitCode: 1, inconclusive: 1, pass: 1, fail: 0 });
  expect(res.status).toBe(1);
  expect(junit).toMatch(/<failure type="inconclusive" message="inconclusive: not run/);
  expect(junit).toMatch(/<testsuites [^>]*failures="1"/);
  expect(String(res.stdout)).toMatch(/FAIL|inconclusive/);
});
