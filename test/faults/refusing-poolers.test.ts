/**
 * Poolers that refuse instead of queueing. pgpool-II with reserved_connections = 1 answers a
 * client beyond num_init_children - 1 with 53300 "Sorry, too many clients already"; PgBouncer
 * with max_db_connections and a short query_wait_timeout disconnects a client that waited that
 * long with "query_wait_timeout". Red before: discovery threw TARGET_UNREACHABLE at the first
 * refusal. Now discovery reads the refusal as the pool's boundary (it counted the pool),
 * checks that need more clients than the pooler admits are inconclusive with the limit named,
 * and capacity/queueing is `rejected` with the pooler's words verbatim.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPgBouncer } from '../../fixtures/pgbouncer-fixture.js';
import { startPgpool } from '../../fixtures/pgpool-fixture.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { runCli } from '../support/cli.js';

const ONLY = ['--only', 'session/set-leak', '--only', 'locks/advisory-session', '--only', 'capacity/queueing'];

describe('poolers that refuse at capacity', () => {
  let pgFixture: PostgresFixture;
  const poolers: PoolerFixture[] = [];
  const table: string[] = [];

  beforeAll(async () => {
    pgFixture = await startPostgres();
  });
  afterAll(async () => {
    for (const p of poolers) await p.stop();
    await pgFixture?.stop();
    console.log(`refusing poolers:\n${table.join('\n')}`);
  });

  async function runAgainst(p: PoolerFixture): Promise<NonNullable<Awaited<ReturnType<typeof runCli>>['report']>> {
    poolers.push(p);
    const run = await runCli(['--target', p.url(), '--timeout', '3s', ...ONLY], { json: true, timeoutMs: 90_000 });
    expect(run.signal, run.stderr).toBeNull();
    expect([0, 1], run.stderr).toContain(run.code);
    expect(run.report, run.stderr).not.toBeNull();
    const r = run.report!;
    table.push(
      `${p.kind} ${p.mode}: exit ${run.code}, ${run.ms} ms, pool ${r.discovery.poolSize}, clientLimit ${JSON.stringify(r.discovery.clientLimit ?? null)}, ${r.checks.map((c) => `${c.id}=${c.outcome ?? 'inconclusive'}`).join(' ')}`,
    );
    return r;
  }

  // pgpool-II frees a child only once it has reset the backend of the client that left: the
  // previous check's last clients (the tidy-up's two visitors) may still hold both slots when
  // capacity/queueing's first client logs in, which is then refused and the check rightly
  // inconclusive (seen once on a quiet machine, in a full run). One more run.
  test(
    'pgpool-II, reserved_connections = 1, 3 children (admits 2): pool of 2 counted, queueing rejected verbatim, the rest steered',
    { retry: 1 },
    async () => {
      const r = await runAgainst(await startPgpool(pgFixture, { children: 3, reservedConnections: 1 }));
      expect(r.discovery.poolSize).toBe(2);
      // How it was counted, for the reports to say beside the size: held 2, the third refused.
      expect(r.discovery.poolCount).toEqual({ held: 2, busyElsewhere: 0, end: 'refused' });
      expect(r.discovery.clientLimit).toMatchObject({
        clients: 2,
        refusal: expect.stringMatching(/^53300 .*Sorry, too many clients already/),
      });
      const queueing = r.checks.find((c) => c.id === 'capacity/queueing')!;
      expect(queueing.outcome, queueing.reason).toBe('rejected');
      expect(String(queueing.facts.rejectedWith)).toMatch(/53300 .*Sorry, too many clients already/);
      // Two clients are enough to steer a state check: within the limit, the checks conclude.
      const setLeak = r.checks.find((c) => c.id === 'session/set-leak')!;
      expect(setLeak.outcome, setLeak.reason).not.toBeNull();
      // The sweep, too, holds no more clients at once than the pooler admits (red before: DIRTY,
      // "the sweep could not finish: ... Sorry, too many clients already").
      expect(r.sweep?.clean, r.sweep?.leftovers.join('; ')).toBe(true);
    },
  );

  test('pgpool-II, reserved_connections = 1, 2 children (admits 1): checks needing a second client say so, with the limit', async () => {
    const r = await runAgainst(await startPgpool(pgFixture, { children: 2, reservedConnections: 1 }));
    expect(r.discovery.clientLimit?.clients).toBe(1);
    expect(r.discovery.poolSize).toBe(1);
    for (const id of ['session/set-leak', 'locks/advisory-session']) {
      const c = r.checks.find((x) => x.id === id)!;
      expect(c.outcome, c.reason).toBeNull();
      expect(c.reason).toMatch(
        /not steerable here: the pooler admits 1 client\(s\) at once and this check needed one more \(.*Sorry, too many clients already/,
      );
    }
    const queueing = r.checks.find((c) => c.id === 'capacity/queueing')!;
    // On a busy machine the one slot may still be held by the previous check's last client
    // when the check's first client logs in (pgpool-II frees a child only once that client's
    // connection is closed): the first login is refused and nothing can be told, which the
    // check says with the refusal. Any other answer, or no reason, still fails (issue 21).
    if (queueing.outcome === null) {
      expect(queueing.reason).toMatch(/T1 queue\.connect: 53300 .*Sorry, too many clients already/);
      return;
    }
    expect(queueing.outcome, queueing.reason).toBe('rejected');
    expect(String(queueing.facts.rejectedWith)).toMatch(/Sorry, too many clients already/);
  });

  // PgBouncer enforces query_wait_timeout from its periodic maintenance, not at the exact moment:
  // under CPU load a 200 ms transaction's waiters can all be served first. One more run.
  test(
    'PgBouncer, max_db_connections = 2, query_wait_timeout = 0.1 s: pool of 2 counted, queueing rejected with "query_wait_timeout"',
    { retry: 1 },
    async () => {
      const r = await runAgainst(
        await startPgBouncer(pgFixture, { poolMode: 'transaction', maxDbConnections: 2, queryWaitTimeoutS: 0.1 }),
      );
      expect(r.discovery.poolSize).toBe(2);
      expect(r.discovery.mode).toBe('transaction');
      const queueing = r.checks.find((c) => c.id === 'capacity/queueing')!;
      expect(queueing.outcome, queueing.reason).toBe('rejected');
      expect(String(queueing.facts.rejectedWith)).toMatch(/08P01 query_wait_timeout/);
    },
  );
});
