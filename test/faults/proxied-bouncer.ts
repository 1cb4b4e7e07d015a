/**
 * A PgBouncer (transaction mode, pool of 2) on its own PostgreSQL, reached through a fault
 * proxy: the stack the fault tests inject at. `url()` goes through the proxy.
 */
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.js';
import { startPgBouncer } from '../../fixtures/pgbouncer-fixture.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';

export interface ProxiedBouncer {
  pg: PostgresFixture;
  bouncer: PoolerFixture;
  proxy: FaultProxy;
  /** The pooler's URL through the proxy. */
  url(): string;
  stop(): Promise<void>;
}

export async function startProxiedBouncer(): Promise<ProxiedBouncer> {
  const pg = await startPostgres();
  const bouncer = await startPgBouncer(pg, { poolMode: 'transaction' });
  const proxy = await startFaultProxy({ upstreamPort: bouncer.port });
  return {
    pg,
    bouncer,
    proxy,
    url: () =>
      `postgres://${bouncer.user}:${encodeURIComponent(bouncer.password)}@127.0.0.1:${proxy.port}/${bouncer.database}`,
    async stop() {
      await proxy.close();
      await bouncer.stop();
      await pg.stop();
    },
  };
}
