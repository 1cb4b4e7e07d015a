/**
 * A real PostgreSQL reached through the fault proxy, with a run context whose target is the
 * proxy: for engine tests that cut, reset or pace the connections of sessions they drive
 * themselves. Discovery runs against the server directly (the proxy stays fault-free for the
 * test), so the context knows the server as direct Postgres.
 */
import { discover } from '../../engine/discovery/discovery.js';
import { runContext } from '../../engine/context/run-state.js';
import type { RunContext } from '../../engine/steering/scenario.js';
import { resolveTarget } from '../../engine/target/target.js';
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.js';
import { loginUrl } from '../../fixtures/login.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';

export interface ProxiedPostgres {
  pg: PostgresFixture;
  proxy: FaultProxy;
  ctx: RunContext;
  stop(): Promise<void>;
}

export async function startProxiedPostgres(
  runId: string,
  bounds: RunContext['bounds'] = { connectMs: 5_000, stepMs: 5_000 },
): Promise<ProxiedPostgres> {
  const pg = await startPostgres();
  let proxy: FaultProxy | null = null;
  try {
    proxy = await startFaultProxy({ upstreamPort: pg.port });
    const discovery = await discover(resolveTarget({ target: pg.url() }, {}), { bounds, poolBound: 8, runId });
    const target = resolveTarget({ target: loginUrl({ ...pg, port: proxy.port, caFile: null }) }, {});
    const ctx = runContext({ target, direct: null, discovery, runId, bounds });
    const started = proxy;
    return {
      pg,
      proxy: started,
      ctx,
      async stop() {
        await started.close();
        await pg.stop();
      },
    };
  } catch (err) {
    await proxy?.close();
    await pg.stop();
    throw err;
  }
}
