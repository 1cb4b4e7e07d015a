/**
 * Fewer logins per check, counted at a TCP proxy in front of real PgBouncers (pool of 2):
 * - under transaction pooling a scenario's sessions come from logins made ahead of need, and a
 *   spare is adopted into the scenario's record under the scenario's label;
 * - under session pooling (control) no spare is ever made: a connected client owns a backend;
 * - the other-run probe keeps one session between checks, and replaces it once it died;
 *   without --direct under session pooling (control) every probe logs in afresh;
 * - none of that reaches a capacity check's count of clients.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { discover } from '../../engine/discovery/discovery.js';
import { otherRunsActive } from '../../engine/steering/other-runs.js';
import { closeKeptSessions } from '../../engine/steering/kept-session.js';
import { closeSpares } from '../../engine/steering/spare-session.js';
import { runContext, RunState } from '../../engine/context/run-state.js';
import { Scenario, type RunContext } from '../../engine/steering/scenario.js';
import { resolveTarget } from '../../engine/target/target.js';
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.js';
import { startStack, type Stack, type StackName } from '../../fixtures/stack.js';
import { crowd } from '../../engine/steering/crowd.js';

const bounds = { connectMs: 5_000, stepMs: 5_000 };

/** A stack behind a counting proxy, discovered through it. */
async function behindProxy(name: StackName): Promise<{ stack: Stack; proxy: FaultProxy; ctx: RunContext }> {
  const stack = await startStack(name);
  const proxy = await startFaultProxy({ upstreamPort: stack.target.port });
  const url = new URL(stack.target.url());
  url.port = String(proxy.port);
  const target = resolveTarget({ target: url.toString() }, {});
  // Discovery and the checks share the run's live state, as in a run.
  const state = new RunState();
  const discovery = await discover(target, { bounds, poolBound: 8, runId: 'a1b2c3d4', state });
  return { stack, proxy, ctx: runContext({ target, direct: null, discovery, runId: 'a1b2c3d4', bounds }, state) };
}

/** Waits (bounded) until the proxy has accepted `n` connections. */
async function accepted(proxy: FaultProxy, n: number): Promise<number> {
  for (let i = 0; i < 100 && proxy.accepted() < n; i++) await new Promise((r) => setTimeout(r, 20));
  return proxy.accepted();
}

describe.each([
  ['pgbouncer-transaction', true],
  ['pgbouncer-session', false],
] as const)('logins ahead of need on %s', (name, spares) => {
  let s: Awaited<ReturnType<typeof behindProxy>>;
  beforeAll(async () => {
    s = await behindProxy(name);
  });
  afterAll(async () => {
    if (s) await Promise.all([closeSpares(s.ctx.state), closeKeptSessions('all', s.ctx.state)]);
    await s?.proxy.close();
    await s?.stack.stop();
  });

  test(
    spares
      ? 'a scenario takes spares, adopted under its own labels'
      : 'no spare is made (a connected client owns a backend)',
    async () => {
      const before = s.proxy.accepted();
      const scn = new Scenario(s.ctx);
      scn.useSpares();
      try {
        // Spares log in before any session is asked for: 2 for the check, 2 for the tidy-up's visitors.
        expect(await accepted(s.proxy, before + 4)).toBe(spares ? before + 4 : before);
        const a = await scn.open('A');
        const step = await a.run('A.create', 'SELECT pg_backend_pid() AS pid');
        expect(step.session).toBe('A');
        expect(step.pid).toEqual(expect.any(Number));
        expect(scn.steps.map((x) => x.tag)).toEqual(['A.create']);
        // Taking one spare starts one more login (transaction) or logs in on the spot (session).
        expect(await accepted(s.proxy, before + 5)).toBe(before + (spares ? 5 : 1));
      } finally {
        await scn.closeAll();
        await closeSpares(s.ctx.state);
      }
    },
  );

  test(
    spares
      ? 'the other-run probe keeps its session, and replaces it once it died'
      : 'the other-run probe logs in for every question (control)',
    async () => {
      const before = s.proxy.accepted();
      for (let i = 0; i < 3; i++) expect(await otherRunsActive(s.ctx, 0)).toBe(0);
      expect(s.proxy.accepted()).toBe(before + (spares ? 1 : 3));
      s.proxy.drop('all');
      await new Promise((r) => setTimeout(r, 50));
      expect(await otherRunsActive(s.ctx, 0)).toBe(0);
      expect(s.proxy.accepted()).toBe(before + (spares ? 2 : 4));
    },
  );
});

/**
 * Regression: idle logins made ahead of need stayed connected while a capacity check's crowd
 * connected, so they counted against the pooler's client limit (max_client_conn) and could
 * turn a queue into refusals. Counted at the proxy while the crowd works: its own clients only.
 */
describe('capacity checks see only their own clients', () => {
  let s: Awaited<ReturnType<typeof behindProxy>>;
  beforeAll(async () => {
    s = await behindProxy('pgbouncer-transaction');
  });
  afterAll(async () => {
    if (s) await Promise.all([closeSpares(s.ctx.state), closeKeptSessions('all', s.ctx.state)]);
    await s?.proxy.close();
    await s?.stack.stop();
  });

  test('while a crowd of 6 works, the target sees 6 clients of the run, not its spares and kept probe', async () => {
    // A check before the crowd leaves spares and the kept probe session (no --direct: through the target).
    expect(await otherRunsActive(s.ctx, 0)).toBe(0);
    const scn = new Scenario(s.ctx);
    scn.useSpares();
    const seen: number[] = [];
    try {
      await accepted(s.proxy, s.proxy.accepted() + 4);
      expect(s.proxy.connections()).toBeGreaterThanOrEqual(5);
      await crowd(scn, {
        count: 6,
        prefix: 'T',
        connectTag: 'queue.connect',
        connectMs: 5_000,
        startTogetherMs: 2_000,
        work: async (c) => {
          seen.push(s.proxy.connections());
          await c.run('queue.tx', 'SELECT pg_backend_pid() AS pid');
        },
      });
    } finally {
      await scn.closeAll();
    }
    expect(seen).toEqual([6, 6, 6, 6, 6, 6]);
  });
});
