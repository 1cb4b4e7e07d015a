/**
 * A crowd against a pooler that refuses at capacity starts with its limit's worth of clients
 * admitted. pgpool-II (3 children, reserved_connections = 1: it admits 2 clients and answers the
 * next with 53300 "Sorry, too many clients already") frees a child only once it has reset the
 * backend of the client that left, so the run's previous clients may still hold both slots
 * when capacity/queueing's crowd logs in: seen once in a full run, where every client of the
 * crowd was refused and the check was inconclusive ("no connection of the check was answered").
 *
 * Here two clients hold both slots on purpose and leave 300 ms after the crowd began. The
 * check waits for its first two clients to be admitted, and comes out `rejected` with the
 * pooler's words, the two admitted clients served. Control: the same crowd without
 * `admitFirst` is refused whole.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { discover } from '../../engine/discovery/discovery.js';
import { executeCheck } from '../../engine/execute/execute.js';
import { runContext } from '../../engine/context/run-state.js';
import { crowd } from '../../engine/steering/crowd.js';
import { Scenario, type RunContext } from '../../engine/steering/scenario.js';
import { resolveTarget } from '../../engine/target/target.js';
import { startPgpool } from '../../fixtures/pgpool-fixture.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { queueing } from '../../suites/capacity/queueing.check.js';

const bounds = { connectMs: 5_000, stepMs: 5_000 };
let pg: PostgresFixture | undefined;
let pool: PoolerFixture | undefined;
let ctx: RunContext;

beforeAll(async () => {
  pg = await startPostgres();
  pool = await startPgpool(pg, { children: 3, reservedConnections: 1 });
  const target = resolveTarget({ target: pool.url() }, {});
  const discovery = await discover(target, { bounds, poolBound: 8, runId: 'c0ffee23' });
  ctx = runContext({ target, direct: null, discovery, runId: 'c0ffee23', bounds });
}, 60_000);
afterAll(async () => {
  await pool?.stop();
  await pg?.stop();
});

/** Two clients of this run hold both slots, and leave 300 ms after leaveSoon() is called. */
async function slotsHeld(): Promise<{ leaveSoon(): Promise<void> }> {
  const holders = new Scenario(ctx);
  await holders.open('X');
  await holders.open('Y');
  return {
    async leaveSoon() {
      await new Promise((r) => setTimeout(r, 300));
      await holders.closeAll();
    },
  };
}

test('discovery found the limit of 2 clients', () => {
  expect(ctx.discovery.clientLimit?.clients).toBe(2);
});

test('both slots held as the crowd begins: its first two clients are admitted once they are free, and the check is rejected', async () => {
  const held = await slotsHeld();
  const [result] = await Promise.all([executeCheck(queueing, ctx, null), held.leaveSoon()]);
  expect(result.outcome, result.reason).toBe('rejected');
  expect(String(result.facts.rejectedWith)).toMatch(/53300 .*Sorry, too many clients already/);
  const served = result.steps.filter((s) => s.tag === 'queue.tx' && s.error === null && s.pid !== null);
  expect(served.map((s) => s.session).sort()).toEqual(['T1', 'T2']);
}, 60_000);

test('control: the same crowd without admitFirst is refused whole', async () => {
  const held = await slotsHeld();
  const scn = new Scenario(ctx);
  try {
    const [clients] = await Promise.all([
      crowd(scn, {
        count: 6,
        prefix: 'C',
        connectTag: 'control.connect',
        connectMs: bounds.connectMs,
        work: async (s) => void (await s.run('control.tx', 'SELECT 1')),
      }),
      held.leaveSoon(),
    ]);
    expect(clients.filter((c) => c !== null)).toHaveLength(0);
    const refused = scn.steps.filter((s) => s.tag === 'control.connect');
    expect(refused).toHaveLength(6);
    for (const s of refused) expect(s.error?.code, s.error?.message).toBe('53300');
  } finally {
    await scn.closeAll();
  }
}, 60_000);
