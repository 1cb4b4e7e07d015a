/**
 * capacity/burst run for real, against the fixture it needs: a PostgreSQL with
 * max_connections = 25, behind PgBouncer (transaction mode, pool of 2) and on its own. Through
 * PgBouncer the 100 clients must be absorbed with the record showing more of them served at
 * once than the server's limit (read directly); the control, the same burst straight at
 * PostgreSQL, must overflow with 53300 - also when the logins arrive one at a time, as they do
 * on a busy machine (issue 21: each client was served and gone before the next logged in, so
 * the control never reached the limit).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { startStack } from '../../fixtures/stack.js';
import { startFaultProxy } from '../../fixtures/fault-proxy.js';
import { loginUrl } from '../../fixtures/login.js';
import { run } from '../../runner/run.js';
import type { CheckResult } from '../../engine/types.js';
import { assertValidReport } from '../support/report-schema.js';

const MAX_CONNECTIONS = 25;
let pg: PostgresFixture;

beforeAll(async () => {
  pg = await startPostgres({ maxConnections: MAX_CONNECTIONS });
});
afterAll(async () => {
  await pg?.stop();
});

async function burstOn(name: 'pgbouncer-transaction' | 'direct'): Promise<CheckResult> {
  const stack = await startStack(name, { postgresFixture: pg });
  try {
    const report = await run({ target: stack.target.url(), direct: pg.url(), only: ['capacity/burst'], fixture: true });
    assertValidReport(report);
    expect(report.sweep?.clean, report.sweep?.leftovers.join('; ')).toBe(true);
    return report.checks[0]!;
  } finally {
    await stack.stop();
  }
}

describe('capacity/burst against max_connections = 25', () => {
  test('through PgBouncer: absorbed, with more clients served at once than max_connections', async () => {
    const c = await burstOn('pgbouncer-transaction');
    expect(c.outcome, c.reason).toBe('absorbed');
    expect(c.facts).toMatchObject({
      clients: 100,
      served: 100,
      refused: 0,
      maxConnections: MAX_CONNECTIONS,
      maxConnectionsVia: 'direct',
    });
    expect(Number(c.facts.servedAtOnce)).toBeGreaterThan(MAX_CONNECTIONS);
    expect(c.steps.some((s) => s.tag === 'burst.limits.direct')).toBe(true);
  }, 120_000);

  test('control, straight at PostgreSQL: overflowed, the clients beyond the limit refused with 53300', async () => {
    const c = await burstOn('direct');
    expect(c.outcome, c.reason).toBe('overflowed');
    // How many are refused depends on how many logins overlap (each client leaves at once),
    // which load changes; that the server refused some with 53300 is the point.
    expect(Number(c.facts.refused)).toBeGreaterThan(0);
    expect(String(c.facts.refusedWith)).toMatch(/^53300 /);
  }, 120_000);

  test('control with logins let through one at a time (a busy machine): still overflowed, the clients held connected', async () => {
    // 30 ms apart, each client would be served and gone before the next one logged in.
    const proxy = await startFaultProxy({ upstreamPort: pg.port });
    try {
      proxy.paceAccepts(30);
      const report = await run({
        target: loginUrl({ ...pg, port: proxy.port, caFile: null }),
        direct: pg.url(),
        only: ['capacity/burst'],
        fixture: true,
      });
      const c = report.checks[0]!;
      expect(c.outcome, c.reason).toBe('overflowed');
      expect(String(c.facts.refusedWith)).toMatch(/^53300 /);
      expect(Number(c.facts.served)).toBeLessThanOrEqual(MAX_CONNECTIONS);
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
