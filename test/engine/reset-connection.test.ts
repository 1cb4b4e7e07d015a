/**
 * A connection the target resets (a TCP RST, as from a pooler restarted or killed under load)
 * is a lost connection, never an answer. CI of stop 29 failed on exactly this: PgBouncer
 * restarted mid-check, A's SET LOCAL read "read ECONNRESET", the step was recorded with the
 * socket's errno as its `code`, and every reader that takes a code for an SQLSTATE judged it:
 * session/set-local said `rejected` ("the transaction block was refused"), and the outage
 * rule, which looks for a link broken without a word from the server, passed it over.
 *
 * Real PostgreSQL behind the fault proxy, which resets the client's side of the one connection
 * a chosen statement travelled on. Controls: the same statement closed with a FIN reads as the
 * connection ending (so the reset really is a different fault), an SQL error keeps its
 * SQLSTATE, and set-local without the fault is `scoped`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { executeCheck } from '../../engine/execute/execute.js';
import { outageIn } from '../../engine/judging/outage.js';
import { answered, refused, sqlError } from '../../engine/record/step-reading.js';
import { Scenario, type RunContext } from '../../engine/steering/scenario.js';
import type { FaultProxy } from '../../fixtures/fault-proxy.js';
import { startProxiedPostgres, type ProxiedPostgres } from '../support/proxied-postgres.js';
import { setLocal } from '../../suites/session/set-local.check.js';
import type { StepRecord } from '../../engine/types.js';

let stack: ProxiedPostgres | undefined;
let proxy: FaultProxy;
let ctx: RunContext;

beforeAll(async () => {
  stack = await startProxiedPostgres('c0ffee29');
  ({ proxy, ctx } = stack);
});
afterAll(async () => {
  await stack?.stop();
});

/** Runs `sql` on a fresh session whose connection the proxy cuts right after passing it on. */
async function cutAfter(sql: string, how: 'reset' | 'close'): Promise<StepRecord> {
  const scn = new Scenario(ctx);
  try {
    const a = await scn.open('A');
    const marker = Buffer.from(sql);
    proxy.afterChunk(
      'toServer',
      (chunk) => chunk.includes(marker),
      (n) => void proxy.drop(n, { reset: how === 'reset' }),
    );
    return await a.run('A.cut', sql);
  } finally {
    await scn.closeAll();
  }
}

describe('a reset connection is lost, not answered', () => {
  test('the step records the errno in its message and no code: not answered, not refused, an outage', async () => {
    const step = await cutAfter(`SELECT pg_sleep(0.2), 'reset-me'`, 'reset');
    expect(step.timedOut).toBe(false);
    expect(step.error?.message).toMatch(/ECONNRESET/);
    expect(step.error?.code).toBeUndefined();
    expect(sqlError(step)).toBe(false);
    expect(answered(step)).toBe(false);
    expect(refused(step)).toBe(false);
    expect(outageIn([step])).toBe(step);
  });

  test('control: the same cut with a FIN reads as the connection ending, not as a reset', async () => {
    const step = await cutAfter(`SELECT pg_sleep(0.2), 'close-me'`, 'close');
    expect(step.error?.message).not.toMatch(/ECONNRESET/);
    expect(step.error?.message).toMatch(/terminated|ended/i);
    expect(answered(step)).toBe(false);
  });

  test('control: an SQL error keeps its SQLSTATE and counts as an answer', async () => {
    const scn = new Scenario(ctx);
    try {
      const a = await scn.open('A');
      const step = await a.run('A.div', 'SELECT 1/0');
      expect(step.error?.code).toBe('22012');
      expect(step.error?.severity).toBe('ERROR');
      expect(answered(step)).toBe(true);
      expect(refused(step)).toBe(true);
    } finally {
      await scn.closeAll();
    }
  });
});

describe('session/set-local whose SET LOCAL is reset', () => {
  test('is inconclusive, never "rejected"', async () => {
    const marker = Buffer.from('SET LOCAL statement_timeout');
    proxy.afterChunk(
      'toServer',
      (chunk) => chunk.includes(marker),
      (n) => void proxy.drop(n, { reset: true }),
    );
    const result = await executeCheck(setLocal, ctx, null);
    const set = result.steps.find((s) => s.tag === 'A.create');
    expect(set?.error?.message, 'the fault hit SET LOCAL').toMatch(/ECONNRESET/);
    expect(result.outcome).toBeNull();
    expect(result.reason).toMatch(/^A's SET LOCAL got no answer: .*ECONNRESET/);
  });

  test('control: without the fault it is "scoped"', async () => {
    const result = await executeCheck(setLocal, ctx, null);
    expect(result.outcome).toBe('scoped');
  });
});
