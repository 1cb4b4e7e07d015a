/**
 * The watch names the traffic the protocol checks concern, sent by real libpq (psycopg 3) to a
 * real PostgreSQL through the watch's proxy: COPY FROM STDIN and TO STDOUT (one inside a
 * transaction block), a CopyFail, a pipeline of three rounds (a named statement parsed in the
 * first and bound in the third, an error in the second), and a connection that leaves with a
 * pipeline in flight. The pipelined rounds are still attributed right: the named statement
 * bound in round three is the one parsed in round one, and the error round takes nothing else
 * with it. The control sends the same statements one round at a time: no traffic at all.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { startWatch } from '../../watch/watch.js';
import type { WatchReport } from '../../watch/watch-types.js';
import { PROTOCOL_CHECKS } from '../../audit/protocol-traffic.js';
import { renderWatchMarkdown } from '../../watch/watch-render.js';
import { watchSchemaErrors } from '../support/watch-schema.js';
import { protocolVersion, rawStartup, type RawConnection } from '../../engine/session/raw-startup.js';
import { typed } from '../../engine/wire/frontend.js';

const CLIENT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'clients', 'protocol-traffic.py');
/** Debian's python3, which has psycopg 3 (the first python3 on PATH may not). */
const PYTHON = '/usr/bin/python3';
const hasPsycopg = spawnSync(PYTHON, ['-c', 'import psycopg'], { timeout: 20_000 }).status === 0;

let server: PostgresFixture;
beforeAll(async () => {
  if (hasPsycopg) server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

async function watchClient(...args: string[]): Promise<WatchReport> {
  const watching = await startWatch({ upstream: server.url() });
  try {
    const conninfo = `host=${watching.host} port=${watching.port} user=${server.user} dbname=${server.database} sslmode=disable connect_timeout=10`;
    // Not spawnSync: the proxy runs on this process's event loop.
    const run = await promisify(execFile)(PYTHON, [CLIENT, conninfo, ...args], {
      timeout: 60_000,
      // The password by environment, so that no error message carries it.
      env: { ...process.env, PGPASSWORD: server.password },
    });
    expect(run.stdout).toMatch(/done/);
  } finally {
    var report = await watching.stop();
  }
  return report;
}

describe.skipIf(!hasPsycopg)('the watch recognises COPY and pipelines on the wire (libpq through psycopg 3)', () => {
  test('COPY in and out, CopyFail, pipelined rounds, a named statement and an error in them, a disconnect mid-pipeline', async () => {
    const report = await watchClient();
    const kinds = (report.traffic ?? []).map((t) => `${t.kind}|${t.check}`);
    expect(kinds.sort()).toEqual(
      [
        `copy-in|${PROTOCOL_CHECKS.copy}`,
        `copy-out|${PROTOCOL_CHECKS.copy}`,
        `copy-fail|${PROTOCOL_CHECKS.copy}`,
        `pipeline|${PROTOCOL_CHECKS.pipelineTransactions}`,
        `pipeline-prepared|${PROTOCOL_CHECKS.pipelinePrepared}`,
        `pipeline-error|${PROTOCOL_CHECKS.pipelineError}`,
        `pipeline-disconnect|${PROTOCOL_CHECKS.pipelineDisconnect}`,
      ].sort(),
    );
    const of = (kind: string) => report.traffic!.find((t) => t.kind === kind)!;
    // Both COPY FROM STDIN (the finished one and the abandoned one) are one entry: same text.
    expect(of('copy-in')).toMatchObject({ statement: 'COPY tp_rows FROM STDIN', count: 2, inBlock: 0 });
    expect(of('copy-out')).toMatchObject({
      statement: 'COPY (SELECT n FROM tp_rows ORDER BY n) TO STDOUT',
      inBlock: 1,
    });
    expect(of('copy-fail').statement).toBe('COPY tp_rows FROM STDIN');
    expect(of('pipeline-prepared').statement).toBe('SELECT $1::int + 1');
    // The pipeline is shown by its first round's statement.
    expect(of('pipeline').statement).toBe('SELECT $1::int + 1');
    expect(of('pipeline-error').statement).toBe('SELECT 1 / $1::int');
    expect(of('pipeline-disconnect').first.connection).toBe(2);
    // Attribution: the statement bound in round three is the one parsed in round one, across
    // the failed round, so the named statement is a dependency between transactions, seen.
    const named = report.findings.find((f) => f.state.includes('tp_next'));
    expect(named, JSON.stringify(report.findings.map((f) => f.state))).toMatchObject({
      check: 'prepared/protocol-named',
      evidence: 'seen',
    });
    expect(named!.used!.transaction).toBeGreaterThan(named!.created.transaction);
    expect(report.warnings).toEqual([]);
    expect(watchSchemaErrors(report)).toEqual([]);
    // A protocol check missing from the build would be said beside its traffic.
    const md = renderWatchMarkdown(report);
    for (const t of report.traffic!)
      expect(md).toContain(`\`${t.check}\`${t.checkInCatalogue ? '' : ' (not in this build yet)'}`);
  });

  test('control: the same statements one round at a time, without COPY: no traffic', async () => {
    const report = await watchClient('control');
    expect(report.traffic).toEqual([]);
    expect(report.summary.statements).toBeGreaterThanOrEqual(3);
  });

  test("Close of a named statement (pooltest's own wire client); the control closes the unnamed one", async () => {
    const watching = await startWatch({ upstream: server.url() });
    try {
      const ep = {
        host: watching.host,
        port: watching.port,
        user: server.user,
        database: server.database,
        password: server.password,
      };
      const { conn } = await rawStartup(ep, protocolVersion(3, 0), {}, 10_000);
      expect(conn).not.toBeNull();
      for (const name of ['tp_closed', '']) {
        // Parse, Sync; then Close (statement), Sync: two rounds, each read to its ReadyForQuery
        // before the next is sent (sent together they would be a pipeline, and said so).
        conn!.write(typed('P', Buffer.concat([cstring(name), cstring('SELECT 1'), Buffer.from([0, 0])])));
        conn!.write(typed('S', Buffer.alloc(0)));
        expect(await readyCount(conn!, 1)).toEqual(['1', 'Z']);
        conn!.write(typed('C', Buffer.concat([Buffer.from('S'), cstring(name)])));
        conn!.write(typed('S', Buffer.alloc(0)));
        expect(await readyCount(conn!, 1)).toEqual(['3', 'Z']);
      }
      conn!.close();
    } finally {
      var report = await watching.stop();
    }
    expect((report.traffic ?? []).map((t) => [t.kind, t.check, t.statement])).toEqual([
      ['close', PROTOCOL_CHECKS.close, 'SELECT 1'],
    ]);
  });
});

const cstring = (s: string): Buffer => Buffer.from(`${s}\0`);

/** The message types up to the `n`th ReadyForQuery, within 10 s. */
async function readyCount(conn: RawConnection, n: number): Promise<string[]> {
  const started = Date.now();
  const seen: string[] = [];
  while (seen.filter((t) => t === 'Z').length < n) {
    const got = await conn.next(started + 10_000, started);
    if (!('payload' in got)) throw new Error(`the connection ended: ${JSON.stringify(got)}`);
    seen.push(got.type ?? '?');
  }
  return seen;
}
