/**
 * capacity/burst (fixtures only): are 100 clients arriving at once all served?
 *
 *   L:  SELECT pg_backend_pid() AS pid, current_setting('max_connections')::int AS max_connections
 *   K1..K100, all at once, each: connect; SELECT pg_backend_pid() AS pid; disconnect
 *
 * Meant for a Postgres started with max_connections = 25: direct, the connections beyond the
 * limit are refused with SQLSTATE 53300 ("sorry, too many clients already"); a pooler with a
 * small pool queues them and serves every one. It runs only against a throwaway fixture
 * (`fixture` in the run context): a hundred connections at once would starve the other users
 * of a shared server.
 */
import { defineCheck } from '../../engine/check.js';
import { errorSummary, readCrowd } from '../../engine/judging/crowd-record.js';
import { numberOf, stepOf } from '../../engine/judging/record.js';
import { crowd } from '../../engine/steering/crowd.js';
import type { Judgement, StepRecord } from '../../engine/types.js';

const CLIENTS = 100;

export const burst = defineCheck({
  id: 'capacity/burst',
  title: 'a burst of 100 clients at once is served without refusals',
  // Floods the pooler with clients: it runs last (see runner/check-order.ts).
  flags: ['destructive'],
  // A refusal at capacity is one of its answers (rejected / overflowed), not a doubt.
  answersWithRefusals: true,
  severity: 'availability',
  docs: [
    'https://www.postgresql.org/docs/current/runtime-config-connection.html#GUC-MAX-CONNECTIONS (53300 beyond the limit)',
    'https://www.pgbouncer.org/config.html#max_client_conn (clients are queued for a server, up to max_client_conn)',
  ],
  advice: {
    overflowed: 'Clients were refused in a burst: put a pooler in front (or raise its client limit), or limit and retry connections in the application.',
  },
  skipIf: (ctx) => (ctx.fixture ? null : 'fixtures only: 100 connections at once would starve the other clients of a shared server'),
  async scenario(scn) {
    const l = await scn.open('L');
    await l.run('burst.limits', `SELECT pg_backend_pid() AS pid, current_setting('max_connections')::int AS max_connections`);
    // pgpool-II serves one client per child: the limits client must not hold one during the burst.
    await l.close();
    await crowd(scn, {
      count: CLIENTS,
      prefix: 'K',
      connectTag: 'burst.connect',
      connectMs: scn.ctx.bounds.connectMs,
      work: async (s) => void (await s.run('burst.client', 'SELECT pg_backend_pid() AS pid')),
    });
  },
  judge: judgeBurst,
});

/**
 * - No client recorded, or none served and none refused: inconclusive.
 * - Any client refused or left waiting past the connection bound: `overflowed`, with the
 *   errors verbatim and counted.
 * - Otherwise `absorbed`.
 */
export function judgeBurst(steps: readonly StepRecord[]): Judgement {
  const clients = readCrowd(steps, 'burst.connect', 'burst.client');
  const served = clients.filter((c) => c.state === 'served');
  const failed = clients.filter((c) => c.state !== 'served');
  const facts = {
    clients: clients.length,
    served: served.length,
    refused: clients.filter((c) => c.state === 'refused').length,
    waitedPastBound: clients.filter((c) => c.state === 'waited').length,
    refusedWith: errorSummary(failed),
    backends: new Set(served.flatMap((c) => c.pids)).size,
    maxConnections: numberOf(stepOf(steps, 'burst.limits'), 'max_connections'),
  };
  if (clients.length === 0 || (served.length === 0 && facts.refused === 0)) return { outcome: null, facts, reason: 'no client of the burst got an answer' };
  if (failed.length > 0) return { outcome: 'overflowed', facts, reason: `${failed.length} of ${clients.length} clients failed: ${facts.refusedWith}` };
  return { outcome: 'absorbed', facts, reason: `all ${clients.length} clients were served, by ${facts.backends} backends` };
}
