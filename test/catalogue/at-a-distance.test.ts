/**
 * The catalogue against PgBouncer 20 ms away (10 ms each way, the delaying fault proxies of
 * the benchmark in front of the pooler and of PostgreSQL), once, through the CLI: the run
 * concludes what it concludes on loopback (expected-outcomes.ts, which catalogue.test.ts holds
 * the loopback run to), sweeps clean and exits 0 with the profile. Issue 23: the cuts in
 * round trips (logins ahead, looks that share a round trip, lanes of connect cycles) must not
 * make anything less conclusive where every round trip costs time. The sequential round trips
 * themselves are counted by the benchmark (`npm run bench`), never asserted on time here.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { condition, type Condition } from '../../bench/speed/conditions.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { outcomes, runCli, type CliRun } from '../support/cli.js';
import { comparable, EXPECTED, MEASURED } from './expected-outcomes.js';

const DELAY_EACH_WAY_MS = 10;
/** Guards against a hang, not a speed requirement: every step of the run has its own bound. */
const RUN_BOUND_MS = 300_000;

describe('catalogue against pgbouncer-transaction 20 ms away', () => {
  let stack: Stack;
  let far: Condition;
  let run: CliRun;

  beforeAll(async () => {
    stack = await startStack('pgbouncer-transaction');
    far = await condition(stack, DELAY_EACH_WAY_MS);
    run = await runCli(['--target', far.target, '--direct', far.direct, '--profile', 'pgbouncer-transaction'], {
      json: true,
      timeoutMs: RUN_BOUND_MS,
    });
  }, 60_000 + RUN_BOUND_MS);
  afterAll(async () => {
    await far?.stop();
    await stack?.stop();
  });

  test('the run really went through the delay: discovery measured a round trip of 20 ms or more', () => {
    // Without this the test would pass just as well on loopback, proving nothing about distance.
    expect(run.report?.discovery.rttMs, run.stderr).toBeGreaterThanOrEqual(2 * DELAY_EACH_WAY_MS);
    expect(far.wire.roundTrips(DELAY_EACH_WAY_MS)).toBeGreaterThan(50);
  });

  test('every check reports what it reports on loopback, and the run exits 0', () => {
    expect(comparable(outcomes(run.report)), run.stdout + run.stderr).toEqual(EXPECTED['pgbouncer-transaction']);
    expect(run.code).toBe(0);
  });

  test('the measured checks conclude or say the measurement fell short, with both sides measured', () => {
    for (const id of MEASURED) {
      const c = run.report?.checks.find((x) => x.id === id);
      if (c?.outcome === null) expect(c.reason, id).toMatch(/connect cycles/);
      else expect(c?.outcome, `${id}: ${c?.reason}`).toEqual(expect.any(String));
      expect(c?.facts.targetConnections, id).toBeGreaterThanOrEqual(10);
      expect(c?.facts.directConnections, id).toBeGreaterThanOrEqual(10);
    }
  });

  test('the sweep proves nothing was left behind', () => {
    expect(run.report?.sweep?.state, run.report?.sweep?.reason).toBe('clean');
    expect(run.report?.sweep?.backendsVisited.length).toBe(2);
  });
});
