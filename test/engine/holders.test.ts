/**
 * Holders on a real statement-pooling PgBouncer (pool of 2): a third holder is queued, and its
 * step must say so (unanswered within the bound), not read as a lost connection - which the
 * engine would take for an outage and which would hide the queue that proves a reservation.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { discover } from '../../engine/discovery/discovery.js';
import { runContext } from '../../engine/context/run-state.js';
import { outageIn } from '../../engine/judging/outage.js';
import { take } from '../../engine/steering/holders.js';
import { Scenario } from '../../engine/steering/scenario.js';
import { resolveTarget } from '../../engine/target/target.js';
import { startStack, type Stack } from '../../fixtures/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('pgbouncer-statement');
});
afterAll(async () => {
  await stack?.stop();
});

test('a queued statement-strategy holder is recorded as unanswered, not as an outage', async () => {
  const target = resolveTarget({ target: stack.target.url() }, {});
  const bounds = { connectMs: 5_000, stepMs: 5_000 };
  const discovery = await discover(target, { bounds, poolBound: 8 });
  expect(discovery.holderStrategy).toBe('statement');
  const scn = new Scenario(runContext({ target, direct: null, discovery, runId: 'holdtest', bounds }));
  try {
    const holds = [];
    for (const label of ['H1', 'H2', 'H3'])
      holds.push(await take(scn, await scn.open(label), 'observe.take', { releaseBy: 'cancel' }));
    expect(holds.map((h) => h.waited)).toEqual([false, false, true]);
    const queued = holds[2]!.step!;
    expect(queued.timedOut).toBe(true);
    expect(queued.error?.message).toMatch(/no backend within/);
    for (const h of holds.slice(0, 2)) await h.release();
    expect(outageIn(scn.steps)).toBeUndefined();
  } finally {
    await scn.closeAll();
  }
});
