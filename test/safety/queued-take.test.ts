/**
 * A take that gives up waiting for a backend costs the pool nothing. PgBouncer stops reading a
 * waiting client whose Query message fills its packet buffer (4096 bytes), so when such a client
 * went away it found out only after handing the message a server, and closed that server
 * connection half-way through it. The sweep's visit of one check grew past 4 KB with
 * lock_timeout's own marker, and every visitor that queued and gave up cost a server: behind a
 * link that refuses new ones (test/faults/shrinking-pool.test.ts) the pool ended at 0. Red
 * before: the third holder's backend was a new one. The control shows the loss is real.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { discover } from '../../engine/discovery/discovery.js';
import { runContext } from '../../engine/context/run-state.js';
import { valueOf } from '../../engine/record/step-reading.js';
import { QUEUED_MESSAGE_MAX_BYTES, queryMessageBytes, take, type Hold } from '../../engine/steering/holders.js';
import { cleanupBlock } from '../../engine/steering/state-scenario.js';
import { Scenario } from '../../engine/steering/scenario.js';
import { cleanupSql, inspectionSql } from '../../engine/sweep/visit-sql.js';
import { resolveTarget } from '../../engine/target/target.js';
import type { Discovery } from '../../engine/types.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { CATALOGUE } from '../../suites/catalogue.js';

const RUN = 'feed0042';
const bounds = { connectMs: 10_000, stepMs: 10_000 };
/** The final sweep's visit of the whole catalogue: far past the packet buffer. */
const VISIT = [
  inspectionSql(
    RUN,
    CATALOGUE.map((c) => c.id),
  ),
  cleanupBlock(
    cleanupSql(
      RUN,
      CATALOGUE.map((c) => c.id),
    ),
  ),
];
/** What PgBouncer writes when it closes a server connection for a client that left mid-message. */
const CLOSED = /S-0x[0-9a-f]+: .* closing because: client disconnect while server was not ready/;

describe('a queued take that gives up (PgBouncer, transaction pooling, pool of 2)', () => {
  let stack: Stack;
  let discovery: Discovery;
  const target = (): ReturnType<typeof resolveTarget> => resolveTarget({ target: stack.target.url() }, {});
  const closedServers = (): number =>
    readFileSync(stack.pooler!.logFile, 'utf8')
      .split('\n')
      .filter((l) => CLOSED.test(l)).length;

  beforeAll(async () => {
    stack = await startStack('pgbouncer-transaction');
    discovery = await discover(target(), { bounds, poolBound: 8 });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** Both backends held; returns their pids and a release of both. */
  async function holdPool(scn: Scenario): Promise<{ pids: Set<number | null>; release(): Promise<void> }> {
    const holds: Hold[] = [];
    for (const label of ['H1', 'H2']) holds.push(await take(scn, await scn.open(label), 'hold'));
    return {
      pids: new Set(holds.map((h) => h.pid)),
      release: async () => {
        for (const h of holds) await h.release();
      },
    };
  }

  // oneMessage: the tidy-up's visit (backend-visits.ts), which would hold with one statement.
  test.each([false, true])(
    'gives up without costing PgBouncer a server connection, its statements too large to wait (oneMessage %s)',
    async (oneMessage) => {
      expect(queryMessageBytes(['BEGIN', 'SELECT pg_backend_pid() AS pid', ...VISIT].join('; '))).toBeGreaterThan(
        QUEUED_MESSAGE_MAX_BYTES,
      );
      const scn = new Scenario(runContext({ target: target(), direct: null, discovery, runId: RUN, bounds }));
      try {
        const before = closedServers();
        const pool = await holdPool(scn);
        expect(pool.pids.size).toBe(2);
        const queued = await take(scn, await scn.open('Q'), 'visit', { statements: VISIT, waitMs: 300, oneMessage });
        expect(queued.waited).toBe(true);
        await pool.release();
        // The same two server connections, still: a closed one would have been replaced by a new backend.
        const again = await holdPool(scn);
        await again.release();
        expect(again.pids).toEqual(pool.pids);
        expect(closedServers()).toBe(before);
      } finally {
        await scn.closeAll();
      }
    },
  );

  test('with a backend free, the statements run on the held backend, in a step that reads its pid', async () => {
    const scn = new Scenario(runContext({ target: target(), direct: null, discovery, runId: RUN, bounds }));
    try {
      const visit = await take(scn, await scn.open('V'), 'visit', { statements: VISIT });
      await visit.release();
      expect(visit.waited).toBe(false);
      expect(visit.pid).not.toBeNull();
      const steps = scn.steps.filter((s) => s.tag === 'visit');
      // The first step waited for the backend, the second ran the statements there.
      expect(steps.map((s) => s.pid)).toEqual([null, visit.pid]);
      expect(valueOf(steps[0], 'given_pid')).toBe(visit.pid);
      expect(valueOf(visit.step!, 'locks')).toBe(0);
      expect(visit.step!.error).toBeNull();
    } finally {
      await scn.closeAll();
    }
  });

  test('control: a 4096-byte query left waiting and given up does cost a server connection', async () => {
    const scn = new Scenario(runContext({ target: target(), direct: null, discovery, runId: RUN, bounds }));
    const client = new pg.Client({ connectionString: stack.target.url() });
    client.on('error', () => undefined);
    try {
      const before = closedServers();
      const pool = await holdPool(scn);
      await client.connect();
      // 4096 bytes on the wire: 'Q', length, the text, its zero.
      const sql = `SELECT 1 /*${'x'.repeat(4096 - 6 - 'SELECT 1 /**/'.length)}*/`;
      expect(queryMessageBytes(sql)).toBe(4096);
      client.query(sql).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
      (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      await pool.release();
      const again = await holdPool(scn);
      await again.release();
      expect(again.pids).not.toEqual(pool.pids);
      expect(closedServers()).toBe(before + 1);
    } finally {
      await client.end().catch(() => undefined);
      await scn.closeAll();
    }
  });
});
