/**
 * The catalogue against every real fixture, through the CLI, with the matching profile: what
 * documentation and a hand experiment say each pooler does. Each run must also sweep clean.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStack, type Stack, type StackName } from '../../fixtures/stack.js';
import { outcomes, runCli, type CliRun } from '../support/cli.js';

const EXPECTED: Record<string, Record<string, string>> = {
  'pgbouncer-transaction': {
    'session/set-leak': 'leaked',
    'session/tracked-parameter': 'tracked',
    'session/set-local': 'scoped',
    'temp/temp-table': 'leaked',
    'locks/advisory-session': 'shared',
    'notify/listen': 'misrouted',
    'prepared/sql-prepare': 'leaked',
  },
  direct: {
    'session/set-leak': 'session',
    'session/tracked-parameter': 'session',
    'session/set-local': 'scoped',
    'temp/temp-table': 'session',
    'locks/advisory-session': 'exclusive',
    'notify/listen': 'delivered',
    'prepared/sql-prepare': 'session',
  },
};
EXPECTED['pgbouncer-session'] = EXPECTED.direct!;
EXPECTED.pgpool = EXPECTED.direct!;
EXPECTED['pgbouncer-statement'] = { ...EXPECTED['pgbouncer-transaction']!, 'session/set-local': 'rejected' };

const PROFILE: Record<string, string> = {
  'pgbouncer-transaction': 'pgbouncer-transaction',
  'pgbouncer-session': 'pgbouncer-session',
  'pgbouncer-statement': 'pgbouncer-statement',
  pgpool: 'pgpool',
  direct: 'direct',
};

describe.each(Object.keys(EXPECTED))('catalogue against %s', (name) => {
  let stack: Stack;
  let run: CliRun;

  beforeAll(async () => {
    stack = await startStack(name as StackName);
    run = await runCli(['--target', stack.target.url(), '--direct', stack.postgres.url(), '--profile', PROFILE[name]!], { json: true });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test('every check reports the documented outcome and the run exits 0', () => {
    expect(outcomes(run.report), run.stdout + run.stderr).toEqual(EXPECTED[name]);
    expect(run.code).toBe(0);
  });

  test('discovery names the pooling mode it saw', () => {
    const mode = { direct: 'direct', 'pgbouncer-session': 'session', pgpool: 'session', 'pgbouncer-transaction': 'transaction', 'pgbouncer-statement': 'statement' }[name];
    expect(run.report?.discovery.mode).toBe(mode);
    if (name !== 'direct') expect(run.report?.discovery.poolSize).toBe(2);
  });

  test('every conclusion rests on recorded backends and the sweep finds nothing left', () => {
    for (const c of run.report?.checks ?? []) {
      if (c.outcome === 'rejected') continue;
      expect(c.steps.some((s) => s.pid !== null), c.id).toBe(true);
    }
    expect(run.report?.sweep?.clean, run.report?.sweep?.leftovers.join('; ')).toBe(true);
    expect(run.report?.checks.every((c) => c.cleanup.ok)).toBe(true);
  });
});
