/**
 * The migration judge (drivers/migration-judge.ts) on records shaped as the migration phase
 * writes them: what the framework reported from inside its migration, who held the lock's
 * backend, and what the migrator said at the end. Each label comes with the change that must
 * turn it into another.
 */
import { describe, expect, test } from 'vitest';
import { judgeMigration } from '../../drivers/migration-judge.js';
import { DRIVER_TAGS } from '../../drivers/tags.js';
import type { Discovery, ErrorRecord, StepRecord } from '../../engine/types.js';

const shared = {
  mode: 'transaction',
  sharedAcrossClients: true,
  clientKeepsBackend: false,
  poolSize: 2,
} as unknown as Discovery;
const direct = {
  mode: 'direct',
  sharedAcrossClients: false,
  clientKeepsBackend: true,
  poolSize: null,
} as unknown as Discovery;

let seq = 0;
function step(tag: string, pid: number | null, runs: Array<Record<string, unknown>>, error: ErrorRecord | null = null) {
  seq += 10;
  return {
    seq,
    session: tag.includes('observe') ? 'M1' : 'A',
    tag,
    sql: '',
    pid,
    results: [runs],
    error,
    notices: [],
    notifications: [],
    startMs: seq,
    durationMs: 5,
    timedOut: false,
    txStatus: null,
  } satisfies StepRecord;
}

const RELEASE_FAILED = { message: 'ActiveRecord::ConcurrentMigrationError: Failed to release advisory lock' };

/** A migration on backend 11 whose lock is on `lockPid`, an observer on the lock's backend. */
function record(lockPid: number | null, end: ErrorRecord | null, locking = true): StepRecord[] {
  const t = DRIVER_TAGS.migration;
  return [
    step(t.create, 11, [{ pid: 11, lockPid, lockId: '8021784539913039630', locking }]),
    ...(lockPid !== null ? [step(t.observe, lockPid, [{ pid: lockPid }])] : []),
    step(t.readback, null, end ? [] : [{ migrated: true }], end),
  ];
}

describe('a migration through a transaction pooler', () => {
  test("the migrator's own error after the unlock went elsewhere is failed, with where the lock was", () => {
    const j = judgeMigration(record(11, RELEASE_FAILED), shared);
    expect(j.outcome).toBe('failed');
    expect(j.reason).toMatch(
      /Failed to release advisory lock \(advisory lock 8021784539913039630 taken on backend 11, migration on 11, another client on 11/,
    );
    // Control: the same migration finishing cleanly proves its unlock ran on 11 after all.
    expect(judgeMigration(record(11, null), shared).outcome).toBeNull();
  });

  test('without a lock (advisory_locks: false) it works; a lock no backend held was released by the pooler', () => {
    expect(judgeMigration(record(null, null, false), shared).outcome).toBe('works');
    const lost = judgeMigration(record(null, RELEASE_FAILED, true), shared);
    expect(lost.outcome).toBe('failed');
    expect(lost.facts.lockLost).toBe(true);
    expect(lost.reason).toMatch(/no backend held it .*the pooler released it/);
  });

  test('a migration that did not answer, or never started, has no label', () => {
    const unanswered = record(11, { message: 'the agent did not answer within its bound and was killed' });
    expect(judgeMigration(unanswered, shared).outcome).toBeNull();
    expect(judgeMigration([], shared).outcome).toBeNull();
    expect(judgeMigration(record(11, null).slice(0, 1), shared).reason).toMatch(/not let finish/);
  });
});

test('directly the lock stays with its connection: a clean finish works, a failure still fails', () => {
  expect(judgeMigration(record(12, null), direct).outcome).toBe('works');
  expect(judgeMigration(record(12, RELEASE_FAILED), direct).outcome).toBe('failed');
});
