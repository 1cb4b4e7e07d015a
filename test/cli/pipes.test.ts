/**
 * A closed stdout or stderr stops only that output (issue 20): `pooltest --list-profiles |
 * head -1` died with an unhandled EPIPE and exit 1, and a run piped into `head` exited 1 and
 * wrote no --json report. Each case spawns the built CLI with the read end of its pipe closed
 * before it writes (what `head` has done by the time the report comes), so every write fails.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { runCli } from '../support/cli.js';
import { execFile, type spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { CLI } from '../support/cli.js';

type Child = ReturnType<typeof spawn>;
const closeStdout = (child: Child): void => void child.stdout?.destroy();
const closeBoth = (child: Child): void => {
  child.stdout?.destroy();
  child.stderr?.destroy();
};

describe('a closed pipe', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('pgbouncer-transaction');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test('--list-profiles into a closed stdout exits 0 without a stack trace', async () => {
    const run = await runCli(['--list-profiles'], { onSpawn: closeStdout });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    // The control: the same command with its stdout read prints the profiles.
    const read = await runCli(['--list-profiles']);
    expect(read.stdout).toContain('pgbouncer-transaction');
  });

  test('a run whose stdout is closed carries on: its exit code, its --json report, its sweep', async () => {
    const run = await runCli(
      ['--target', stack.target.url(), '--only', 'session/set-leak', '--profile', 'pgbouncer-transaction'],
      {
        json: true,
        onSpawn: closeStdout,
      },
    );
    expect(run.stderr).not.toMatch(/EPIPE|Unhandled|at .*\.js:\d+/);
    // Progress still reaches stderr, which is open.
    expect(run.stderr).toMatch(/session\/set-leak/);
    expect(run.code).toBe(0);
    expect(run.report?.checks.map((c) => [c.id, c.verdict])).toEqual([['session/set-leak', 'pass']]);
    expect(run.report?.sweep?.clean).toBe(true);
  });

  test('a run with stdout and stderr closed (2>&1 | head) exits with its own code and writes its report', async () => {
    // Exit 0 as the run deserves: a crash on EPIPE exits 1.
    const run = await runCli(
      ['--target', stack.target.url(), '--only', 'session/set-leak', '--profile', 'pgbouncer-transaction'],
      {
        json: true,
        onSpawn: closeBoth,
      },
    );
    expect(run.code).toBe(0);
    expect(run.report?.checks.map((c) => [c.id, c.verdict])).toEqual([['session/set-leak', 'pass']]);
    expect(run.report?.sweep?.clean).toBe(true);
  });

  test('stdout and stderr on one pipe (2>&1): the discovery block is printed once', async () => {
    // Progress (stderr) and the report (stdout) each printed it: twice on one screen.
    const { stdout } = await promisify(execFile)(
      'sh',
      [
        '-c',
        'exec "$0" "$1" --target "$2" --only session/set-local --no-store 2>&1',
        process.execPath,
        CLI,
        stack.target.url(),
      ],
      { env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 },
    );
    expect(stdout.match(/^Discovery /gm)?.length, stdout).toBe(1);
    expect(stdout).toMatch(/^Summary /m);
  });
});
