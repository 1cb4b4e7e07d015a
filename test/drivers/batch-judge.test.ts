/**
 * The batch judge (drivers/judge-batch.ts) on records shaped as batch-scenario.ts writes them:
 * the table, before each batch its intent, the agent's answer, the competitors' queries, and
 * the rows the batch statements wrote. Each label comes from one change to a record that
 * otherwise reads `works`, so every test is also a control of the others. The real runs behind
 * these shapes: test/drivers/batch-controls.test.ts (direct and the fault proxy) and
 * `pooltest drivers --scenario batch` against the fixture stacks (docs/drivers.md).
 */
import { describe, expect, test } from 'vitest';
import { judgeBatch } from '../../drivers/judge-batch.js';
import { DRIVER_LOG } from '../../drivers/agent-process.js';
import { attachServerErrors } from '../../drivers/server-log.js';
import { DRIVER_TAGS } from '../../drivers/tags.js';
import type { Discovery, StepRecord } from '../../engine/types.js';

const T = DRIVER_TAGS.batch;
const pooled = { sharedAcrossClients: true, clientKeepsBackend: false } as Discovery;
const direct = { sharedAcrossClients: false, clientKeepsBackend: true } as Discovery;

let clock = 0;
function step(session: string, tag: string, over: Partial<StepRecord> = {}): StepRecord {
  clock += 10;
  return {
    seq: clock,
    session,
    tag,
    sql: '',
    pid: null,
    results: [],
    error: null,
    notices: [],
    notifications: [],
    startMs: clock,
    durationMs: 5,
    timedOut: false,
    txStatus: null,
    ...over,
  } as StepRecord;
}

interface Batch {
  tx: boolean;
  /** Backend of each statement (8), and its transaction id. */
  pids?: number[];
  xids?: number[];
  over?: Partial<StepRecord>;
}

/** A batch phase's record: `batches` in order, competitors on `competeOn` during each. */
function record(batches: Batch[], competeOn: number[] = [101]): StepRecord[] {
  const steps = [step('T', T.table)];
  const rows: Array<Record<string, unknown>> = [];
  batches.forEach((b, i) => {
    const run = i + 1;
    steps.push(step('A', T.intent, { results: [[{ run, tx: b.tx, statements: 8 }]] }));
    for (const pid of competeOn) steps.push(step('W1', T.compete, { pid, results: [[{ pid }]] }));
    steps.push(step('A', T.run, { durationMs: 30, results: [[{ api: 'executeBatch', statements: 8 }]], ...b.over }));
    if (b.over?.error || b.over?.timedOut) return;
    for (let n = 1; n <= 8; n++)
      rows.push({
        batch: run,
        n,
        pid: b.pids?.[n - 1] ?? 101,
        xid: String(b.xids?.[n - 1] ?? (b.tx ? 1000 + run : 2000 + run * 10 + n)),
      });
  });
  steps.push(step('T', T.rows, { results: [rows] }), step('T', T.drop));
  return steps;
}

const alternating = (n = 8): Batch[] => Array.from({ length: n }, (_, i) => ({ tx: i % 2 === 1 }));

describe('the batch judge', () => {
  test('every batch answered and wrote its rows while a competitor used its backend: works', () => {
    const j = judgeBatch(record(alternating()), pooled);
    expect(j.outcome, j.reason).toBe('works');
    expect(j.facts).toMatchObject({ batches: 8, inTransaction: 4, batchesOnSeveralBackends: 0 });
    expect(j.facts.competitorUses).toBeGreaterThan(0);
  });

  test("control: no competitor on the batches' backend: inconclusive, not works", () => {
    const j = judgeBatch(record(alternating(), [202]), pooled);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/no competitor ran on the batches' backends \(101\)/);
  });

  test('direct: nobody can share the backend, so no competitor is needed', () => {
    const j = judgeBatch(record(alternating(), []), direct);
    expect(j.outcome, j.reason).toBe('works');
    expect(j.reason).toMatch(/connections do not share backends here/);
  });

  test('a batch in a transaction whose statements ran on two backends: split', () => {
    const batches = alternating();
    batches[3] = { tx: true, pids: [101, 101, 101, 101, 102, 102, 102, 102] };
    const j = judgeBatch(record(batches, [101, 102]), pooled);
    expect(j.outcome).toBe('split');
    expect(j.reason).toMatch(/^batch 4 \(in a transaction\): its 8 statements ran on backends 101, 102/);
    expect(j.reason).toMatch(/the 3 batches before it answered/);
  });

  test('a batch in a transaction whose statements ran in two transactions on one backend: split', () => {
    const batches = alternating();
    batches[1] = { tx: true, xids: [7, 7, 7, 7, 8, 8, 8, 8] };
    expect(judgeBatch(record(batches), pooled).outcome).toBe('split');
  });

  test('control: an autocommit batch over two backends is no split, only a fact', () => {
    const batches = alternating();
    batches[0] = { tx: false, pids: [101, 101, 101, 101, 102, 102, 102, 102] };
    const j = judgeBatch(record(batches, [101, 102]), pooled);
    expect(j.outcome, j.reason).toBe('works');
    expect(j.facts.batchesOnSeveralBackends).toBe(1);
  });

  test('a batch that got no answer within its bound: stalled, with how long pooltest waited', () => {
    const batches = alternating(2);
    batches[1] = {
      tx: true,
      over: {
        timedOut: true,
        durationMs: 10_010,
        error: { message: 'the agent did not answer within its bound and was killed' },
      },
    };
    const j = judgeBatch(record(batches), pooled);
    expect(j.outcome).toBe('stalled');
    expect(j.facts.waitedMs).toBe(10_010);
    expect(j.reason).toMatch(/^batch 2 \(in a transaction\) got no answer within 10010 ms: pooltest killed the agent/);
  });

  test("the driver raised the server's error: failed, with the SQLSTATE and message verbatim", () => {
    const batches = alternating();
    batches[2] = {
      tx: false,
      over: { error: { code: '26000', message: 'BatchUpdateException: prepared statement "S_1" does not exist' } },
    };
    const j = judgeBatch(record(batches), pooled);
    expect(j.outcome).toBe('failed');
    expect(j.reason).toMatch(
      /^batch 3 \(autocommit\) failed: 26000 BatchUpdateException: prepared statement "S_1" does not exist/,
    );
  });

  test('a server error the driver hid (its own log): retried', () => {
    const batches = alternating();
    batches[4] = {
      tx: false,
      over: { notices: [{ severity: DRIVER_LOG, code: '26000', message: 'prepared statement "S_1" does not exist' }] },
    };
    const j = judgeBatch(record(batches), pooled);
    expect(j.outcome, j.reason).toBe('retried');
    expect(j.facts.hiddenError).toBe('26000 prepared statement "S_1" does not exist');
  });

  test('an answered batch whose rows are not all in the table: inconclusive, said', () => {
    const steps = record(alternating());
    const rows = steps.find((s) => s.tag === T.rows)!;
    rows.results = [rows.results[0]!.filter((r) => !(r.batch === 5 && r.n === 8))];
    const j = judgeBatch(steps, pooled);
    expect(j.outcome).toBeNull();
    expect(j.reason).toBe('batch 5 (autocommit) answered, but the table holds 7 of its 8 rows');
  });

  test('a driver without a batch API: inconclusive with its reason', () => {
    const j = judgeBatch(
      record([{ tx: false, over: { error: { message: 'Unsupported: node-postgres has no batch or pipeline API' } } }]),
      pooled,
    );
    expect(j.outcome).toBeNull();
    expect(j.reason).toBe('not run: node-postgres has no batch or pipeline API');
  });

  test('a table that could not be created: inconclusive, with the server error', () => {
    const steps = [step('T', T.table, { error: { code: '42501', message: 'permission denied for schema public' } })];
    expect(judgeBatch(steps, pooled).reason).toMatch(/could not be created: permission denied/);
  });

  test("a stalled batch carries what the server logged while pooltest waited, on the record's backends", () => {
    const batches = alternating(2);
    batches[1] = {
      tx: false,
      over: {
        timedOut: true,
        durationMs: 10_000,
        error: { message: 'the agent did not answer within its bound and was killed' },
      },
    };
    const steps = record(batches, [101, 102]);
    const stalled = steps.filter((s) => s.tag === T.run)[1]!;
    const origin = 1_000_000;
    const logged = (pid: number, atMs: number) => ({
      pid,
      atMs: origin + atMs,
      message: 'prepared statement "bq2" does not exist',
    });
    // One error on a backend of the record while the batch waited, one on a backend it never saw,
    // one on its backend after the wait: only the first is the stall's.
    attachServerErrors(
      steps,
      [logged(102, stalled.startMs + 5), logged(999, stalled.startMs + 5), logged(102, stalled.startMs + 20_000)],
      origin,
    );
    expect(stalled.notices.map((n) => n.message)).toEqual([
      'prepared statement "bq2" does not exist (server log, backend 102)',
    ]);
    const j = judgeBatch(steps, pooled);
    expect(j.outcome).toBe('stalled');
    expect(j.reason).toMatch(
      /meanwhile the server logged 1 error\(s\), first: prepared statement "bq2" does not exist/,
    );
  });
});
