/**
 * The Vitest entry under strict: POOLTEST_STRICT=1 makes an inconclusive check fail its test
 * (with the reason), where without it the test is skipped. The run is a real Vitest process
 * with pooltest's real global setup (discovery against a real PgBouncer, the sweep after), and
 * one check whose judge never concludes: the control a strict CI must not take for green.
 * POOLTEST_FAIL_ON_BREAKS=1 likewise makes a check whose outcome breaks transaction-pooled
 * clients fail its test, where without it the observation passes (nothing was asserted).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { setupOptionsFromEnv } from '../../runner/vitest-setup.js';
import { REPO } from '../support/cli.js';

let stack: Stack;
let dir: string;

/** A check that records one real step and never concludes. */
const BLIND_CHECK = `import { checkTest } from ${JSON.stringify(path.join(REPO, 'dist/runner/vitest-check.js'))};
checkTest({
  id: 'session/set-leak', title: 'never concludes (control for the strict route)', severity: 'correctness', docs: [], advice: {},
  async scenario(scn) { const a = await scn.open('A'); await a.run('A.look', 'SELECT pg_backend_pid() AS pid'); },
  judge: () => ({ outcome: null, facts: {}, reason: 'this control never concludes' }),
});
`;

/** A check that records one real step and observes a breaking outcome (set-leak's `leaked`). */
const BREAKING_CHECK = `import { checkTest } from ${JSON.stringify(path.join(REPO, 'dist/runner/vitest-check.js'))};
checkTest({
  id: 'session/set-leak', title: 'always breaks (control for --fail-on-breaks)', severity: 'correctness', docs: [], advice: {},
  outcomes: { leaked: { means: 'the control leaks' } },
  async scenario(scn) { const a = await scn.open('A'); await a.run('A.look', 'SELECT pg_backend_pid() AS pid'); },
  judge: () => ({ outcome: 'leaked', facts: {}, reason: 'this control always leaks' }),
});
`;

beforeAll(async () => {
  stack = await startStack('pgbouncer-transaction');
  dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-strict-'));
  writeFileSync(path.join(dir, 'blind.test.mjs'), BLIND_CHECK);
  writeFileSync(path.join(dir, 'breaking.test.mjs'), BREAKING_CHECK);
  for (const name of ['blind', 'breaking'])
    writeFileSync(
      path.join(dir, `${name}.config.mjs`),
      `export default { test: { include: ['${name}.test.mjs'], globalSetup: [${JSON.stringify(path.join(REPO, 'dist/runner/vitest-setup.js'))}], testTimeout: 60000 } };\n`,
    );
});
afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface VitestJson {
  testResults: Array<{ assertionResults: Array<{ status: string; failureMessages: string[] }> }>;
}

async function vitest(
  strict: string | undefined,
  config: 'blind' | 'breaking' = 'blind',
  variable = 'POOLTEST_STRICT',
): Promise<{ code: number | null; result: { status: string; failureMessages: string[] } | undefined }> {
  const out = path.join(dir, `out-${config}-${strict ?? 'none'}.json`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    POOLTEST_TARGET: stack.target.url(),
    ...(strict !== undefined ? { [variable]: strict } : {}),
  };
  delete env.VITEST;
  delete env.VITEST_WORKER_ID;
  const child = spawn(
    process.execPath,
    [
      path.join(REPO, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--config',
      `${config}.config.mjs`,
      '--reporter=json',
      `--outputFile=${out}`,
    ],
    { cwd: dir, env, stdio: 'ignore' },
  );
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  const json = JSON.parse(readFileSync(out, 'utf8')) as VitestJson;
  return { code, result: json.testResults[0]?.assertionResults[0] };
}

describe('POOLTEST_STRICT in the Vitest entry', () => {
  test('without it, an inconclusive check is skipped and the run passes', async () => {
    const { code, result } = await vitest(undefined);
    expect(result?.status).toBe('skipped');
    expect(code).toBe(0);
  }, 120_000);

  test('with it, the same check fails its test with the reason, and the run fails', async () => {
    const { code, result } = await vitest('1');
    expect(result?.status).toBe('failed');
    expect(result?.failureMessages.join('\n')).toContain('inconclusive under --strict: this control never concludes');
    expect(code).toBe(1);
  }, 120_000);

  test('its value is read strictly: a typo stops the run instead of turning strict off', () => {
    expect(setupOptionsFromEnv({ POOLTEST_STRICT: 'true' }).strict).toBe(true);
    expect(setupOptionsFromEnv({ POOLTEST_STRICT: '0' }).strict).toBe(false);
    expect(() => setupOptionsFromEnv({ POOLTEST_STRICT: 'ture' })).toThrow(/POOLTEST_STRICT "ture"/);
  });
});

describe('POOLTEST_FAIL_ON_BREAKS in the Vitest entry', () => {
  test('control, without it: a breaking observation passes (nothing was asserted)', async () => {
    const { code, result } = await vitest(undefined, 'breaking');
    expect(result?.status).toBe('passed');
    expect(code).toBe(0);
  }, 120_000);

  test('with it, the same check fails its test, naming the outcome, and the run fails', async () => {
    const { code, result } = await vitest('1', 'breaking', 'POOLTEST_FAIL_ON_BREAKS');
    expect(result?.status).toBe('failed');
    expect(result?.failureMessages.join('\n')).toContain(
      '"leaked" breaks transaction-pooled clients (--fail-on-breaks): this control always leaks',
    );
    expect(code).toBe(1);
  }, 120_000);

  test('its value is read strictly too', () => {
    expect(setupOptionsFromEnv({ POOLTEST_FAIL_ON_BREAKS: 'yes' }).failOnBreaks).toBe(true);
    expect(() => setupOptionsFromEnv({ POOLTEST_FAIL_ON_BREAKS: 'maybe' })).toThrow(/POOLTEST_FAIL_ON_BREAKS "maybe"/);
  });
});
