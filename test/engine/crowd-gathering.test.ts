/**
 * A crowd that starts together waits for its slow logins (issue 21). Logins through a fault
 * proxy that lets one connection through every 250 ms - a machine too busy to run them at
 * once - take 1.5 s for six clients; the crowd's bound of 1 s counts from the latest login, so
 * every client's work starts only once all six are connected. Counted from the start, the
 * bound released the first few while the rest were still logging in, and capacity/queueing
 * read their late starts as waits.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { discover } from '../../engine/discovery.js';
import { runContext } from '../../engine/run-state.js';
import { Scenario, type RunContext } from '../../engine/steering/scenario.js';
import { crowd } from '../../engine/steering/crowd.js';
import { resolveTarget } from '../../engine/target.js';
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.js';
import { loginUrl } from '../../fixtures/login.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';

const bounds = { connectMs: 5_000, stepMs: 5_000 };
let pg: PostgresFixture;
let proxy: FaultProxy;
let ctx: RunContext;

beforeAll(async () => {
  pg = await startPostgres();
  proxy = await startFaultProxy({ upstreamPort: pg.port });
  const direct = resolveTarget({ target: pg.url() }, {});
  const discovery = await discover(direct, { bounds, poolBound: 8, runId: 'c0ffee21' });
  const target = resolveTarget({ target: loginUrl({ ...pg, port: proxy.port, caFile: null }) }, {});
  ctx = runContext({ target, direct: null, discovery, runId: 'c0ffee21', bounds });
});
afterAll(async () => {
  await proxy?.close();
  await pg?.stop();
});

test('logins one every 250 ms, bound 1 s: every client starts its work once all six are connected', async () => {
  proxy.paceAccepts(250);
  const scn = new Scenario(ctx);
  const began: number[] = [];
  const t0 = performance.now();
  try {
    const sessions = await crowd(scn, {
      count: 6,
      prefix: 'T',
      connectTag: 'gather.connect',
      connectMs: bounds.connectMs,
      startTogetherMs: 1_000,
      work: async (s) => {
        began.push(performance.now() - t0);
        await s.run('gather.tx', 'SELECT 1');
      },
    });
    expect(sessions.every((s) => s !== null)).toBe(true);
  } finally {
    proxy.paceAccepts(0);
    await scn.closeAll();
  }
  // The sixth connection is let through 1.5 s after the first was accepted: nobody starts earlier.
  expect(began).toHaveLength(6);
  expect(Math.min(...began)).toBeGreaterThanOrEqual(1_400);
  // Released together, in one tick.
  expect(Math.max(...began) - Math.min(...began)).toBeLessThan(100);
});
