/**
 * The upstream asks for TLS (PgBouncer with client_tls_sslmode=require and a self-signed
 * certificate, in front of PostgreSQL): the client talks plaintext to the proxy on loopback
 * (its SSLRequest is answered 'N'), and the proxy negotiates TLS upstream itself, verifying the
 * certificate when the URL says verify-full. Authentication passes through inside TLS. Also the
 * watch in front of a pooler, as the brief allows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPgBouncer } from '../../fixtures/pgbouncer-fixture.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { startWatch } from '../../watch/watch.js';

let pgFixture: PostgresFixture;
let bouncer: PoolerFixture;
let home: string;

beforeAll(async () => {
  pgFixture = await startPostgres();
  bouncer = await startPgBouncer(pgFixture, { poolMode: 'session', tls: true });
  home = mkdtempSync(path.join(os.tmpdir(), 'pooltest-home-'));
});
afterAll(async () => {
  await bouncer?.stop();
  await pgFixture?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

const url = (query: string): string =>
  `postgres://${bouncer.user}:${encodeURIComponent(bouncer.password)}@127.0.0.1:${bouncer.port}/${bouncer.database}${query}`;

async function sessionThroughWatch(
  query: string,
  ssl: boolean | { rejectUnauthorized: false },
): Promise<{ report: Awaited<ReturnType<Awaited<ReturnType<typeof startWatch>>['stop']>>; error: string | null }> {
  const w = await startWatch({ upstream: url(query), env: { HOME: home }, connectTimeoutMs: 5_000 });
  const client = new pg.Client({
    host: w.host,
    port: w.port,
    user: bouncer.user,
    password: bouncer.password,
    database: bouncer.database,
    ssl,
    connectionTimeoutMillis: 10_000,
  });
  client.on('error', () => undefined);
  let error: string | null = null;
  try {
    await client.connect();
    await client.query("SET statement_timeout = '3s'");
    await client.query('SELECT 1');
    await client.end();
  } catch (e) {
    error = (e as Error).message;
  }
  return { report: await w.stop(), error };
}

describe('TLS to the upstream', () => {
  test('sslmode=verify-full with the certificate as root: the watch works, traffic is followed', async () => {
    const { report, error } = await sessionThroughWatch(
      `?sslmode=verify-full&sslrootcert=${encodeURIComponent(bouncer.caFile!)}`,
      false,
    );
    expect(error).toBeNull();
    expect(report.findings.map((f) => `${f.check}|${f.state}`)).toEqual(['session/set-leak|statement_timeout']);
  });

  test("a client that insists on TLS is answered 'N': the proxy speaks plaintext on loopback (the watch sets PGSSLMODE=disable)", async () => {
    // node-postgres with ssl set fails on 'N' instead of falling back: that failure proves the answer.
    const { error } = await sessionThroughWatch('?sslmode=require', { rejectUnauthorized: false });
    expect(error).toMatch(/does not support SSL/);
  });

  test('sslmode=disable towards a pooler that requires TLS: the pooler refuses, the client sees why', async () => {
    const { error, report } = await sessionThroughWatch('?sslmode=disable', false);
    expect(error).not.toBeNull();
    expect(report.findings).toEqual([]);
  });

  test('verify-full trusting only the system roots: TLS_FAILED before the watch starts, no connection could pass', async () => {
    await expect(
      startWatch({
        upstream: url('?sslmode=verify-full&sslrootcert=system'),
        env: { HOME: home },
        connectTimeoutMs: 5_000,
      }),
    ).rejects.toMatchObject({ code: 'TLS_FAILED', message: expect.stringMatching(/self-signed certificate/) });
  });
});
