/**
 * A scenario's wire-level sessions (Scenario.openWire): their steps go to the scenario's own
 * record, their pids count among the pooled backends the tidy-up and the sweep visit, and
 * closeAll ends them (the connection count at the fault proxy in front of real PostgreSQL
 * falls back to zero), including one whose login was under way when closeAll ran.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Scenario } from '../../engine/steering/scenario.js';
import * as fe from '../../engine/wire/frontend.js';
import { startProxiedPostgres, type ProxiedPostgres } from '../support/proxied-postgres.js';

let stack: ProxiedPostgres | undefined;

beforeAll(async () => {
  stack = await startProxiedPostgres('5ce7a71e');
});
afterAll(async () => {
  await stack?.stop();
});

async function connectionsSettleAt(n: number): Promise<number> {
  for (let i = 0; i < 200 && stack!.proxy.connections() !== n; i++) await new Promise((r) => setTimeout(r, 10));
  return stack!.proxy.connections();
}

test('a wire session records into the scenario, its pid is a pooled backend, closeAll ends it', async () => {
  const { proxy, ctx } = stack!;
  const scn = new Scenario(ctx);
  const a = await scn.openWire('A');
  const x = await a.exchange('A.pid', [
    fe.parse('', 'SELECT pg_backend_pid() AS pid'),
    fe.bind('', ''),
    fe.describe('P', ''),
    fe.execute(),
    fe.sync(),
  ]);
  expect(x.end).toEqual({ kind: 'complete' });
  expect(scn.steps.map((s) => [s.session, s.tag])).toEqual([['A', 'A.pid']]);
  const pid = scn.steps[0]!.pid;
  expect(pid).toEqual(expect.any(Number));
  expect(scn.pooledBackends()).toEqual([pid]);
  // Left inside a transaction: closeAll rolls it back and leaves.
  await a.exchange('A.begin', [fe.query('BEGIN')]);
  expect(await connectionsSettleAt(1)).toBe(1);
  proxy.holdNext(400);
  const late = scn.openWire('B');
  await new Promise((r) => setTimeout(r, 50));
  await scn.closeAll();
  expect(a.alive).toBe(false);
  expect((await late).alive).toBe(false);
  expect(await connectionsSettleAt(0)).toBe(0);
});
