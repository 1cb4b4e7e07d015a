/**
 * The wire-level session (engine/session/wire-session.ts) against real PostgreSQL 15: a
 * pipeline of several implicit transactions in one write, answered per Sync in order, with a
 * failing statement skipped to its Sync; COPY FROM STDIN through its sub-protocol; the steps it
 * records. Controls: a malformed reply (the misbehaving server) is a PROTOCOL_VIOLATION on the
 * step it broke, and silence (the fault proxy stalling) is a timed-out step with its wait,
 * both in bounded time and never thrown.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Recorder } from '../../engine/session/recorder.js';
import { WireSession, wireSkipReason } from '../../engine/session/wire-session.js';
import type { Target } from '../../engine/target/target.js';
import * as fe from '../../engine/wire/frontend.js';
import { startFaultProxy } from '../../fixtures/fault-proxy.js';
import { startMisbehavingServer } from '../../fixtures/misbehaving-server.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';

const BOUNDS = { connectMs: 10_000, stepMs: 10_000 };

const targetOf = (host: string, port: number, pg?: PostgresFixture): Target => ({
  host,
  port,
  user: pg?.user ?? 'u',
  password: pg?.password,
  database: pg?.database ?? 'd',
  sslmode: 'disable',
});

/** One statement as a driver sends it: Bind, Describe portal (for column names), Execute. */
const runOf = (statement: string, params: string[] = []): fe.FrontendMessage[] => [
  fe.bind('', statement, params),
  fe.describe('P', ''),
  fe.execute(),
];

describe('against PostgreSQL 15', () => {
  let pg: PostgresFixture;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
  });

  test('a pipeline of three transactions in one write: answered per Sync, in order, the error skipped to its Sync', async () => {
    const rec = new Recorder();
    const w = await WireSession.open('A', targetOf(pg.host, pg.port, pg), rec, BOUNDS);
    try {
      const x = await w.exchange('pipe', [
        fe.parse('s1', 'SELECT pg_backend_pid() AS pid, $1::int AS n'),
        ...runOf('s1', ['1']),
        fe.sync(),
        fe.parse('', 'SELECT 1/0 AS boom'),
        ...runOf(''),
        // Skipped by the server: it discards until the Sync after an error.
        ...runOf('s1', ['99']),
        fe.sync(),
        ...runOf('s1', ['3']),
        fe.close('S', 's1'),
        fe.sync(),
      ]);
      expect(x.end).toEqual({ kind: 'complete' });
      expect(x.answers).toHaveLength(3);
      expect(x.steps.map((s) => s.tag)).toEqual(['pipe.1', 'pipe.2', 'pipe.3']);
      const [one, two, three] = x.steps;
      expect(one!.pid).toBe(w.keyPid);
      expect(one!.results).toEqual([[{ pid: String(w.keyPid), n: '1' }]]);
      expect(one!.txStatus).toBe('I');
      expect(two!.error).toMatchObject({ code: '22012', severity: 'ERROR' });
      expect(two!.results).toEqual([]);
      // 1/0 is folded when the statement is planned: the error comes at Bind, and the rest
      // up to the Sync (Describe, Execute, the second Bind/Execute) is skipped.
      expect(x.answers[1]!.items.map((i) => i.kind)).toEqual(['ParseComplete', 'ErrorResponse', 'ReadyForQuery']);
      expect(three!.results).toEqual([[{ pid: String(w.keyPid), n: '3' }]]);
      expect(x.answers[2]!.items.map((i) => i.kind)).toContain('CloseComplete');
      expect(three!.sql).toBe('Bind "" to "s1" (\'3\'); Describe P ""; Execute ""; Close S "s1"; Sync');
      expect(rec.steps).toHaveLength(3);
      // The statement was closed: a Bind to it now fails (26000), on the same connection.
      const after = await w.exchange('after', [...runOf('s1', ['4']), fe.sync()]);
      expect(after.steps[0]!.error).toMatchObject({ code: '26000' });
    } finally {
      await w.close();
    }
  });

  test('COPY FROM STDIN: reading stops at CopyInResponse, the rows follow in CopyData, CopyDone completes it', async () => {
    const rec = new Recorder();
    const w = await WireSession.open('A', targetOf(pg.host, pg.port, pg), rec, BOUNDS);
    try {
      await w.exchange('setup', [fe.query('CREATE TEMP TABLE t (n int)')]);
      const start = await w.exchange('copy.start', [fe.query('COPY t FROM STDIN')]);
      expect(start.end).toEqual({ kind: 'copy', response: 'CopyInResponse' });
      const done = await w.exchange('copy.data', [fe.copyData('1\n2\n'), fe.copyDone()]);
      expect(done.end).toEqual({ kind: 'complete' });
      expect(done.answers[0]!.tags).toEqual(['COPY 2']);
      const read = await w.exchange('read', [fe.query('SELECT sum(n) AS s FROM t')]);
      expect(read.steps[0]!.results).toEqual([[{ s: '3' }]]);
    } finally {
      await w.close();
    }
  });

  test('an open transaction is rolled back at close: its row never lands', async () => {
    const w = await WireSession.open('A', targetOf(pg.host, pg.port, pg), new Recorder(), BOUNDS);
    await w.exchange('t', [fe.query('CREATE TABLE IF NOT EXISTS wire_close (n int); TRUNCATE wire_close')]);
    await w.exchange('t', [fe.query('BEGIN; INSERT INTO wire_close VALUES (1)')]);
    expect(w.txStatus).toBe('T');
    await w.close();
    const v = await WireSession.open('V', targetOf(pg.host, pg.port, pg), new Recorder(), BOUNDS);
    const x = await v.exchange('v', [fe.query('SELECT count(*) AS c FROM wire_close; DROP TABLE wire_close')]);
    await v.close();
    expect(x.steps[0]!.results[0]).toEqual([{ c: '0' }]);
  });

  test('control: silence (the proxy stalls after login) is a timed-out step with its wait, not a hang', async () => {
    const proxy = await startFaultProxy({ upstreamPort: pg.port });
    const w = await WireSession.open('A', targetOf(proxy.host, proxy.port, pg), new Recorder(), BOUNDS);
    try {
      proxy.stall(5_000);
      const x = await w.exchange(
        'quiet',
        [fe.parse('', 'SELECT 1'), ...runOf(''), fe.sync(), ...runOf(''), fe.sync()],
        {
          boundMs: 600,
        },
      );
      expect(x.end.kind).toBe('timeout');
      expect(x.waitedMs).toBeGreaterThanOrEqual(590);
      expect(x.waitedMs).toBeLessThan(3_000);
      expect(x.steps.map((s) => s.timedOut)).toEqual([true, true]);
      expect(x.steps[0]!.error?.message).toMatch(/no answer within \d+ ms/);
      expect(x.steps[1]!.error?.message).toMatch(/^not answered/);
      expect(w.alive).toBe(false);
      const later = await w.exchange('later', [fe.query('SELECT 1')]);
      expect(later.end.kind).toBe('unusable');
    } finally {
      await w.close();
      await proxy.close();
    }
  });
});

describe('hostile replies', () => {
  test('control: a malformed answer is a PROTOCOL_VIOLATION on its step, never thrown', async () => {
    const bad = await startMisbehavingServer({ fault: 'length-short', at: 1 });
    try {
      const w = await WireSession.open('A', targetOf(bad.host, bad.port), new Recorder(), BOUNDS);
      const x = await w.exchange('bad', [fe.query('SELECT pg_backend_pid()')]);
      expect(x.end.kind).toBe('violation');
      expect(x.steps[0]!.error).toMatchObject({ code: 'PROTOCOL_VIOLATION' });
      expect(x.steps[0]!.error!.message).toMatch(/protocol violation by the server/);
      expect(x.steps[0]!.timedOut).toBe(false);
      await w.close();
    } finally {
      await bad.close();
    }
  });

  test('without the fault, the same server answers the same query', async () => {
    const good = await startMisbehavingServer({ fault: 'length-short', at: 99 });
    try {
      const w = await WireSession.open('A', targetOf(good.host, good.port), new Recorder(), BOUNDS);
      const x = await w.exchange('good', [fe.query('SELECT pg_backend_pid()')]);
      expect(x.end).toEqual({ kind: 'complete' });
      expect(x.steps[0]!.error).toBeNull();
      await w.close();
    } finally {
      await good.close();
    }
  });
});

describe('TLS', () => {
  test('a run whose sslmode requires TLS is told why the wire-level client cannot serve it; prefer and disable are served in plain text', async () => {
    const t = targetOf('127.0.0.1', 1);
    expect(wireSkipReason({ ...t, sslmode: 'require' })).toMatch(
      /does not speak TLS yet, and sslmode=require requires it/,
    );
    expect(wireSkipReason({ ...t, sslmode: 'verify-full' })).not.toBeNull();
    expect(wireSkipReason({ ...t, sslmode: 'prefer' })).toBeNull();
    expect(wireSkipReason(t)).toBeNull();
    await expect(WireSession.open('A', { ...t, sslmode: 'require' }, new Recorder(), BOUNDS)).rejects.toMatchObject({
      code: 'TLS_FAILED',
    });
  });
});
