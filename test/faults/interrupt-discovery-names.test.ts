/**
 * Interrupted during discovery, a run has created no state, but its logins carried the run's
 * application_name, which PgBouncer leaves on its server connections for clients that send no
 * name (see engine/sweep/names.ts). The interrupted run resets it as the sweep would have:
 * nameless clients on every backend of the pool then see none of this run's name. The abort
 * comes after each of several numbers of client chunks through a proxy, so it lands at
 * several moments of discovery, not one.
 */
import pg from 'pg';
import { namesSeenByNamelessClients } from '../safety/trace-inspection.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isPooltestError } from '../../engine/record/errors.js';
import type { FaultProxy } from '../../fixtures/fault-proxy.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import type { PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { startProxiedBouncer, type ProxiedBouncer } from './proxied-bouncer.js';
import { run } from '../../runner/run.js';

describe('interrupted during discovery', () => {
  let stack: ProxiedBouncer;
  let pgFixture: PostgresFixture;
  let bouncer: PoolerFixture;
  let proxy: FaultProxy;
  let discoveryChunks = 0;
  const proxied = (): string => stack.url();

  beforeAll(async () => {
    stack = await startProxiedBouncer();
    ({ pg: pgFixture, bouncer, proxy } = stack);
    // How many client chunks a whole discovery sends (no check selected: discovery, then the sweep).
    let atDiscoveryEnd = 0;
    await run({
      target: proxied(),
      only: ['session/set-leak'],
      onDiscovery: () => {
        atDiscoveryEnd = proxy.chunks('toServer');
      },
    });
    discoveryChunks = atDiscoveryEnd;
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  });

  test('control: a named client that leaves does leave its name on the pool for nameless clients', async () => {
    // What the interrupted run must undo is real, and this way of looking sees it.
    const named = new pg.Client({ connectionString: bouncer.url(), application_name: 'pooltest-ctrl0001' });
    named.on('error', () => undefined);
    await named.connect();
    await named.query('SELECT 1');
    await named.end();
    const names = (await namesSeenByNamelessClients(bouncer.url(), bouncer.poolSize)).map((v) => v.app);
    expect(names).toContain('pooltest-ctrl0001');
    expect(discoveryChunks).toBeGreaterThan(10);
  }, 60_000);

  test('aborted after each sampled number of client chunks: INTERRUPTED, and no backend shows the run name to a nameless client', async () => {
    const samples = [0.25, 0.5, 0.75, 0.9].map((f) => Math.max(1, Math.round(discoveryChunks * f)));
    const wrong: string[] = [];
    for (const [i, n] of samples.entries()) {
      const runId = `intr000${i}`;
      const controller = new AbortController();
      proxy.afterChunk('toServer', n, () => controller.abort());
      const outcome = await run({ target: proxied(), only: ['session/set-leak'], runId, signal: controller.signal })
        .then(() => 'completed')
        .catch((e: unknown) => (isPooltestError(e) ? `${e.code}: ${e.message}` : String(e)));
      if (!outcome.startsWith('INTERRUPTED')) {
        // The abort came after discovery: a reported run, whose sweep resets the names.
        if (outcome !== 'completed') wrong.push(`after ${n} chunks: ${outcome}`);
      }
      const names = (await namesSeenByNamelessClients(bouncer.url(), bouncer.poolSize)).map((v) => v.app);
      const mine = names.filter((name) => name.startsWith(`pooltest-${runId}`));
      if (mine.length > 0)
        wrong.push(`after ${n} chunks (${outcome.slice(0, 80)}): nameless clients see ${mine.join(', ')}`);
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  test('refused by discovery after its logins (a pool larger than --max-pool): POOL_TOO_LARGE, and the names are reset too', async () => {
    const runId = 'big00001';
    const outcome = await run({ target: proxied(), only: ['session/set-leak'], runId, maxPool: 1 })
      .then(() => 'completed')
      .catch((e: unknown) => (isPooltestError(e) ? `${e.code}: ${e.message}` : String(e)));
    expect(outcome).toMatch(/^POOL_TOO_LARGE: /);
    expect(outcome).toMatch(
      /application_name reset on \d+ server connection|no server connection kept this run's application_name/,
    );
    const names = (await namesSeenByNamelessClients(bouncer.url(), bouncer.poolSize)).map((v) => v.app);
    expect(names.filter((name) => name.startsWith(`pooltest-${runId}`))).toEqual([]);
  }, 60_000);
});
