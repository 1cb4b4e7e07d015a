/**
 * The cleanups' lock release against a real PostgreSQL (issue 20): every level of every lock
 * of the given keys this backend holds is released, exclusive and shared, other keys are left
 * alone, and the server's log gets no "you don't own a lock" WARNING, not even for a
 * transaction-level lock the release cannot touch. The control: the old
 * `WHILE pg_advisory_unlock(...)` loop does warn, so the log is being read.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { logText } from '../../fixtures/log-tail.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { releaseHeldLocksSql } from '../../engine/steering/release-locks.js';

const NS = 7;
const held =
  "SELECT objid::int AS k, mode FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() ORDER BY 1, 2";

describe('releasing the advisory locks a backend holds', () => {
  let stack: Stack;
  let client: pg.Client;
  beforeAll(async () => {
    stack = await startStack('direct');
    client = new pg.Client({ connectionString: stack.target.url() });
    client.on('error', () => undefined);
    await client.connect();
  });
  afterAll(async () => {
    await client?.end().catch(() => undefined);
    await stack?.stop();
  });

  async function warningsDuring(run: () => Promise<unknown>): Promise<number> {
    const start = (await logText(stack.postgres.logFile)).length;
    await run();
    // The log is written by the server process: a moment for it to reach the file.
    await client.query('SELECT pg_sleep(0.05)');
    return ((await logText(stack.postgres.logFile)).slice(start).match(/WARNING: {2}you don't own a lock/g) ?? [])
      .length;
  }

  test('every level of the given keys goes, shared ones too, other keys stay, and the log stays quiet', async () => {
    await client.query(
      `SELECT pg_advisory_lock(${NS}, 11), pg_advisory_lock(${NS}, 11), pg_advisory_lock_shared(${NS}, 12), pg_advisory_lock(${NS}, 99)`,
    );
    const warnings = await warningsDuring(() =>
      client.query(`DO $x$ BEGIN ${releaseHeldLocksSql(NS, [11, 12, 13])} END $x$`),
    );
    expect((await client.query(held)).rows).toEqual([{ k: 99, mode: 'ExclusiveLock' }]);
    expect(warnings).toBe(0);
    await client.query(`SELECT pg_advisory_unlock(${NS}, 99)`);
  });

  test('a transaction-level lock it cannot release costs one refusal at most, never a loop', async () => {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(${NS}, 13)`);
    const warnings = await warningsDuring(() => client.query(`DO $x$ BEGIN ${releaseHeldLocksSql(NS, [13])} END $x$`));
    await client.query('COMMIT');
    expect(warnings).toBeLessThanOrEqual(1);
    expect((await client.query(held)).rows).toEqual([]);
  });

  test('control: the old WHILE loop warns once per key not held', async () => {
    const warnings = await warningsDuring(() =>
      client.query(
        `DO $x$ BEGIN WHILE pg_advisory_unlock(${NS}, 21) LOOP END LOOP; WHILE pg_advisory_unlock(${NS}, 22) LOOP END LOOP; END $x$`,
      ),
    );
    expect(warnings).toBe(2);
  });
});
