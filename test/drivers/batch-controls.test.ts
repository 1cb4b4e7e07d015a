/**
 * The batch phase against direct PostgreSQL, with and without a fault: every driver's own batch
 * call works directly (no pooler, nothing to break it), and node-postgres, which has no batch
 * API, has no batch result at all. The fault proxy (fixtures/fault-proxy.ts) in front of the
 * same PostgreSQL lets the first answer of a batch through and swallows the rest: the batch
 * must come out `stalled`, with the wait pooltest bounded it by, and the run must end in
 * bounded time. Control: the same drivers through the same proxy without the fault work.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DRIVERS, type DriverSpec } from '../../drivers/catalogue.js';
import { runDrivers } from '../../drivers/run-drivers.js';
import { resolveTarget } from '../../engine/target/target.js';
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.js';
import { startStack, type Stack } from '../../fixtures/index.js';

let stack: Stack;
let proxy: FaultProxy;
beforeAll(async () => {
  stack = await startStack('direct');
  proxy = await startFaultProxy({ upstreamPort: stack.target.port, upstreamHost: stack.target.host });
});
afterAll(async () => {
  await proxy?.close();
  await stack?.stop();
});

const byId = (ids: string[]): DriverSpec[] =>
  ids.map((id) => {
    const d = DRIVERS.find((x) => x.id === id);
    if (!d) throw new Error(`no driver ${id}`);
    return { ...d, configs: d.configs.filter((c) => c.name === d.configs[0]!.name) };
  });

/** The target through the proxy, same login as the stack's. */
const proxied = () => {
  const u = new URL(stack.target.url());
  u.hostname = proxy.host;
  u.port = String(proxy.port);
  return resolveTarget({ target: u.toString() });
};

/**
 * Arms the proxy: once a batch's INSERT goes to the server, the answers coming back pass up to
 * the end of the first CommandComplete; the rest of that chunk is dropped and the connection
 * black-holed, so no later answer arrives (the agent waits until pooltest's bound).
 */
function dropAnswersAfterTheFirst(): { cut: boolean } {
  const done = { cut: false };
  proxy.afterChunk(
    'toServer',
    (chunk) => chunk.includes('INSERT INTO pooltest_batch_'),
    (connection) => {
      const cut = (chunk: Buffer): Array<{ bytes: Buffer }> => {
        for (let i = 0; i + 5 <= chunk.length; i += 1 + chunk.readInt32BE(i + 1)) {
          if (chunk[i] !== 0x43) continue; // 'C' CommandComplete
          const end = i + 1 + chunk.readInt32BE(i + 1);
          proxy.blackhole(connection, 60_000);
          done.cut = true;
          return [{ bytes: chunk.subarray(0, end) }];
        }
        // No CommandComplete yet (a driver's describe round trip first): pass it, look at the next.
        proxy.rewriteNext('toClient', cut);
        return [{ bytes: chunk }];
      };
      proxy.rewriteNext('toClient', cut);
    },
  );
  return done;
}

describe('the batch phase against direct PostgreSQL', () => {
  test("every driver's own batch call works directly; node-postgres has none and no batch result", async () => {
    const r = await runDrivers(resolveTarget({ target: stack.target.url() }), {
      scenarios: ['batch'],
      direct: resolveTarget({ target: stack.postgres.url() }),
      serverLog: stack.postgres.logFile,
    });
    expect(r.skipped).toEqual([]);
    const batchDrivers = DRIVERS.filter((d) => d.batch !== null);
    expect(new Set(r.results.map((x) => x.driver))).toEqual(new Set(batchDrivers.map((d) => d.id)));
    expect(r.results.length).toBe(batchDrivers.reduce((n, d) => n + d.configs.length, 0));
    for (const x of r.results) {
      expect(x.outcome, `${x.id}: ${x.reason}`).toBe('works');
      expect(x.facts.batches, x.id).toBe(8);
    }
    expect(r.results.some((x) => x.driver === 'node-postgres')).toBe(false);
  }, 240_000);

  // pgjdbc (a describe round trip, then every Bind/Execute and one Sync), postgres.js (one Sync
  // per query) and psycopg2 (one multi-statement Query): three ways of sending a batch.
  const FAULTED = ['pgjdbc', 'postgres.js', 'psycopg2'];

  test('control: through the fault proxy without the fault, the same batches work', async () => {
    const r = await runDrivers(proxied(), { drivers: byId(FAULTED), scenarios: ['batch'], stepMs: 5_000 });
    expect(r.results.map((x) => [x.id, x.outcome])).toEqual(FAULTED.map((d) => [expect.stringContaining(d), 'works']));
  }, 180_000);

  test('answers dropped after the first one of a batch: stalled, with the bounded wait, in bounded time', async () => {
    const stepMs = 3_000;
    const results = [];
    for (const driver of byId(FAULTED)) {
      const fault = dropAnswersAfterTheFirst();
      const t0 = Date.now();
      const r = await runDrivers(proxied(), { drivers: [driver], scenarios: ['batch'], stepMs });
      const tookMs = Date.now() - t0;
      results.push({
        id: r.results[0]?.id,
        outcome: r.results[0]?.outcome,
        waited: r.results[0]?.facts.waitedMs,
        tookMs,
      });
      // The first answer went through (a CommandComplete), the rest never came.
      expect(fault.cut, driver.id).toBe(true);
      expect(r.results[0]?.outcome, `${driver.id}: ${r.results[0]?.reason}`).toBe('stalled');
      expect(r.results[0]?.reason).toMatch(
        /batch 1 \(autocommit\) got no answer within \d+ ms: pooltest killed the agent/,
      );
      const waited = r.results[0]?.facts.waitedMs as number;
      expect(waited).toBeGreaterThanOrEqual(stepMs);
      expect(waited).toBeLessThan(stepMs + 2_000);
      // Discovery, the agent's start, one stalled batch and the cleanup: well under a minute.
      expect(tookMs).toBeLessThan(60_000);
    }
    console.log(JSON.stringify(results));
  }, 240_000);
});
