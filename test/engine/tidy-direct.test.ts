/**
 * The tidy-up after a check looks for the check's backends through the pooler; a backend of a
 * session to the direct server (--direct) is none of them, and it never finds one there. Before
 * the fix every such pid went into the tidy's list: it cost a login and a question ("still
 * alive?") after connect-churn, multiplexing and any check with a direct look, and a direct
 * backend still alive at that moment was reported as a pooled backend "busy with other clients"
 * and left to the final sweep: a cleanup failure of the check that was nothing of the kind.
 *
 * Real PgBouncer (transaction pooling, pool of 2) and the PostgreSQL behind it. The check below
 * records a step on a pooled backend and one on a direct backend that stays connected through
 * the tidy-up. Control: the same check without saying which session is direct reports the
 * direct backend unreached (so the test sees what it claims to).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { defineCheck } from '../../engine/execute/check.js';
import { executeCheck } from '../../engine/execute/execute.js';
import { applicationNameFor, Session } from '../../engine/session/session.js';
import { Scenario, type RunContext } from '../../engine/steering/scenario.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { discoveredRun, releaseRun } from '../support/discovered-run.js';

const RUN_ID = 'd1ec7a11';
const bounds = { connectMs: 5_000, stepMs: 5_000 };
let stack: Stack | undefined;
let ctx: RunContext;
/** Direct sessions the check leaves connected, closed after each test. */
const held: Session[] = [];

beforeAll(async () => {
  stack = await startStack('pgbouncer-transaction');
  ctx = await discoveredRun(stack.target.url(), stack.postgres.url(), RUN_ID, bounds);
}, 120_000);

afterAll(async () => {
  await Promise.all(held.map((s) => s.close()));
  await releaseRun(ctx);
  await stack?.stop();
});

/** A check with one step through the target and one on a direct session it keeps open. */
function lookingDirectly(say: boolean) {
  return defineCheck({
    id: 'test/direct-look',
    title: 'a check that also looks at the server directly',
    summary: 'test only',
    severity: 'correctness',
    docs: [],
    outcomes: { seen: { means: 'both steps answered' } },
    async scenario(scn) {
      const t = await scn.open('T');
      await t.run('T.pid', 'SELECT pg_backend_pid() AS pid');
      // Opened as connect-churn opens its direct side: not through scn.open, so the scenario
      // learns that it is direct only if told.
      const d = await Session.open('D', scn.ctx.direct!, scn.recorder, {
        ...bounds,
        applicationName: applicationNameFor(scn.ctx.runId),
      });
      held.push(d);
      if (say) scn.markDirect('D');
      await d.run('D.pid', 'SELECT pg_backend_pid() AS pid');
    },
    judge: (steps) =>
      steps.every((s) => s.pid !== null)
        ? { outcome: 'seen', facts: {}, reason: 'both answered' }
        : { outcome: null, facts: {}, reason: 'a step did not answer' },
  });
}

async function directPidOf(steps: ReadonlyArray<{ tag: string; pid: number | null }>): Promise<number> {
  const pid = steps.find((s) => s.tag === 'D.pid')?.pid;
  expect(pid).toEqual(expect.any(Number));
  return pid!;
}

describe('the tidy-up after a check leaves direct backends alone', () => {
  test('a direct session marked as such: its backend is not looked for through the pooler', async () => {
    const result = await executeCheck(lookingDirectly(true), ctx, null);
    expect(result.outcome).toBe('seen');
    const pid = await directPidOf(result.steps);
    // The direct backend was alive all through the tidy-up: it is still connected now.
    expect(held.at(-1)?.alive).toBe(true);
    expect(result.cleanup.detail).not.toContain(String(pid));
    expect(result.cleanup.ok).toBe(true);
  }, 60_000);

  test('control: unmarked, the same live direct backend is reported unreached through the pooler', async () => {
    const result = await executeCheck(lookingDirectly(false), ctx, null);
    expect(result.outcome).toBe('seen');
    const pid = await directPidOf(result.steps);
    expect(result.cleanup.ok).toBe(false);
    expect(result.cleanup.detail).toMatch(new RegExp(`backend\\(s\\) [0-9, ]*\\b${pid}\\b.*left to the final sweep`));
  }, 60_000);

  test("scn.open(..., { to: 'direct' }) marks its session itself", async () => {
    const scn = new Scenario(ctx);
    try {
      const t = await scn.open('T');
      const d = await scn.open('P', { to: 'direct' });
      const viaTarget = await t.run('T.pid', 'SELECT pg_backend_pid() AS pid');
      const direct = await d.run('P.pid', 'SELECT pg_backend_pid() AS pid');
      expect(direct.pid).toEqual(expect.any(Number));
      expect(scn.pooledBackends()).toEqual([viaTarget.pid]);
    } finally {
      await scn.closeAll();
    }
  }, 30_000);
});
