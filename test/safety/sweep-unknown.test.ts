/**
 * The sweep tells unknown from dirty. A sweep that cannot reach the target (the pooler went
 * down after the checks) has not found anything: its state is `unknown` with the reason, not
 * "DIRTY - pooltest left state behind", and it does not by itself make the exit code 1. A
 * wrong `--direct`, which only the sweep and a few checks use, is refused before the checks
 * start, with a clear error and exit 2.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../../fixtures/free-port.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { assertValidReport } from '../support/report-schema.js';
import { REPO, runCli } from '../support/cli.js';
import type { Report } from '../../engine/types.js';

/**
 * A library run whose `onCheckResult` shuts PgBouncer down (its admin console's SHUTDOWN,
 * synchronously, so nothing of the run goes on meanwhile) once the last check reported: the
 * sweep is what finds the pooler gone. Prints the JSON report, exits with its exit code.
 */
const SCRIPT = `
const [runUrl, jsonUrl, optsText, adminUrl, file] = process.argv.slice(1);
const { spawnSync } = await import('node:child_process');
const { run } = await import(runUrl);
const { writeJsonReport } = await import(jsonUrl);
const opts = JSON.parse(optsText);
const report = await run({ ...opts, onCheckResult: () => spawnSync('psql', [adminUrl, '-c', 'SHUTDOWN'], { stdio: 'ignore' }) });
writeJsonReport(report, file);
process.exitCode = report.summary.exitCode;
`;

async function runWithPoolerGoneBeforeSweep(
  stack: Stack,
): Promise<{ code: number | null; report: Report | null; stderr: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-lib-'));
  const file = path.join(dir, 'report.json');
  const url = (rel: string): string => new URL(`file://${path.join(REPO, rel)}`).href;
  const opts = { target: stack.target.url(), only: ['session/set-leak'], timeoutMs: 3_000 };
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      SCRIPT,
      url('dist/runner/run.js'),
      url('dist/reporters/json-reporter.js'),
      JSON.stringify(opts),
      stack.pooler!.adminUrl!,
      file,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  let report: Report | null = null;
  try {
    report = JSON.parse(readFileSync(file, 'utf8')) as Report;
    assertValidReport(report);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { code, report, stderr };
}

describe('a sweep that cannot reach the target', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('pgbouncer-transaction');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test('the pooler gone before the sweep: sweep unknown with the reason, not dirty, and exit 0', async () => {
    expect(spawnSync('psql', ['--version']).status, "psql is needed to reach PgBouncer's admin console").toBe(0);
    const r = await runWithPoolerGoneBeforeSweep(stack);
    const sweep = r.report?.sweep;
    expect(r.report?.checks.map((c) => c.outcome)).toEqual(['leaked']);
    expect(sweep?.state, JSON.stringify(sweep)).toBe('unknown');
    expect(sweep?.clean).toBe(false);
    expect(sweep?.leftovers).toEqual([]);
    expect(sweep?.reason).toMatch(/refused|could not|closed|terminated/i);
    expect(r.report?.summary.exitCode).toBe(0);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('a wrong --direct', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('pgbouncer-transaction');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test('a port nothing listens on: TARGET_REFUSED naming --direct, exit 2, before any check ran', async () => {
    const port = await freePort();
    const r = await runCli(
      ['--target', stack.target.url(), '--direct', `127.0.0.1:${port}`, '--only', 'session/set-leak'],
      { json: true },
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`TARGET_REFUSED: --direct: connection to .*:${port}.* refused`));
    expect(r.stderr).not.toMatch(/\[\s*1\/1\]/);
    expect(r.report).toBeNull();
  });

  test('a wrong password: AUTH_FAILED naming --direct, exit 2, and the password is not printed', async () => {
    const direct = new URL(stack.postgres.url());
    direct.password = 'not-the-password-4711';
    const r = await runCli(['--target', stack.target.url(), '--direct', direct.href, '--only', 'session/set-leak'], {
      json: true,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/AUTH_FAILED: --direct: /);
    expect(r.stderr).not.toMatch(/not-the-password-4711/);
  });
});
