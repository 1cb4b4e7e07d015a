/**
 * closeAll leaves no session of its scenario connected, including one whose login was still
 * under way when it ran (a scenario that threw while a sibling was logging in). That login used
 * to complete after closeAll and stay connected, idle and owned by nobody, until the process
 * ended. Counted at the fault proxy in front of real PostgreSQL.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Scenario } from '../../engine/steering/scenario.js';
import { startProxiedPostgres, type ProxiedPostgres } from '../support/proxied-postgres.js';

let stack: ProxiedPostgres | undefined;

beforeAll(async () => {
  stack = await startProxiedPostgres('c105ea11');
});
afterAll(async () => {
  await stack?.stop();
});

async function connectionsSettleAt(n: number): Promise<number> {
  for (let i = 0; i < 100 && stack!.proxy.connections() !== n; i++) await new Promise((r) => setTimeout(r, 10));
  return stack!.proxy.connections();
}

test('a login that completes after closeAll is closed as it completes; one made before is closed by closeAll', async () => {
  const { proxy, ctx } = stack!;
  const scn = new Scenario(ctx);
  const before = await scn.open('A');
  expect(await connectionsSettleAt(1)).toBe(1);
  // B's login is held for 400 ms at the proxy: closeAll runs while it is under way.
  proxy.holdNext(400);
  const late = scn.open('B');
  await new Promise((r) => setTimeout(r, 50));
  expect(proxy.connections()).toBe(2);
  await scn.closeAll();
  expect(before.alive).toBe(false);
  const b = await late;
  expect(b.alive).toBe(false);
  expect(await connectionsSettleAt(0)).toBe(0);
  // Control: the scenario is still usable after closeAll; a new login is kept and closed again.
  const again = await scn.open('C');
  expect(again.alive).toBe(true);
  expect((await again.run('c.one', 'SELECT 1 AS one')).error).toBeNull();
  await scn.closeAll();
  expect(again.alive).toBe(false);
});
