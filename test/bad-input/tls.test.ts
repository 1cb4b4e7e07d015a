/**
 * TLS required by the server (PgBouncer with client_tls_sslmode=require and a self-signed
 * certificate), and the URL's sslmode honoured as libpq does: plaintext is refused with a
 * stable code, `require` encrypts without verifying, `verify-full` verifies against the
 * sslrootcert given, and fails - before connecting - without one; the system's roots do not
 * vouch for a self-signed certificate.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPgBouncer } from '../../fixtures/pgbouncer-fixture.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { runCli } from '../support/cli.js';

describe('TLS required by the pooler', () => {
  let pgFixture: PostgresFixture;
  let bouncer: PoolerFixture;
  /** An empty HOME: libpq's ~/.postgresql/root.crt must not come from the machine running the test. */
  let home: string;
  const times: Record<string, number> = {};

  beforeAll(async () => {
    pgFixture = await startPostgres();
    bouncer = await startPgBouncer(pgFixture, { poolMode: 'transaction', tls: true });
    home = mkdtempSync(path.join(os.tmpdir(), 'pooltest-home-'));
  });
  afterAll(async () => {
    console.log(`tls: ${JSON.stringify(times)}`);
    await bouncer?.stop();
    await pgFixture?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  const url = (query: string): string =>
    `postgres://${bouncer.user}:${encodeURIComponent(bouncer.password)}@127.0.0.1:${bouncer.port}/${bouncer.database}${query}`;
  const ca = (): string => encodeURIComponent(bouncer.caFile!);
  const cli = (query: string) =>
    runCli(['--target', url(query), '--only', 'session/set-leak'], { json: true, env: { HOME: home } });

  test.each([
    [
      'sslmode=disable (plaintext)',
      () => '?sslmode=disable',
      /TLS_FAILED: .*requires TLS, and sslmode=disable connected without it/,
    ],
    [
      'sslmode=verify-full without a root certificate',
      () => '?sslmode=verify-full',
      /TLS_FAILED: sslmode=verify-full needs a root certificate/,
    ],
    [
      "sslmode=verify-full trusting only the system's roots",
      () => '?sslmode=verify-full&sslrootcert=system',
      /TLS_FAILED: .*self-signed certificate/,
    ],
    [
      "sslmode=require with the system's roots (require then verifies the chain, as libpq does)",
      () => '?sslmode=require&sslrootcert=system',
      /TLS_FAILED: .*self-signed certificate/,
    ],
  ])('%s: exit 2 with TLS_FAILED', async (name, query, message) => {
    const run = await cli(query());
    times[name] = run.ms;
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.ms).toBeLessThan(30_000);
  });

  test.each([
    ['sslmode=require (encrypted, not verified)', () => '?sslmode=require', 'require'],
    [
      "sslmode=verify-full with the fixture's certificate as root",
      () => `?sslmode=verify-full&sslrootcert=${ca()}`,
      'verify-full',
    ],
    [
      "sslmode=verify-ca with the fixture's certificate as root",
      () => `?sslmode=verify-ca&sslrootcert=${ca()}`,
      'verify-ca',
    ],
    ["no sslmode (libpq's prefer: TLS because the server offers it)", () => '', 'prefer'],
    ['sslmode=allow (plaintext first, TLS when the server insists)', () => '?sslmode=allow', 'allow'],
  ])('%s: the run works', async (_name, query, ssl) => {
    const run = await cli(query());
    expect(run.code, run.stderr).toBe(0);
    expect(run.report?.target.ssl).toBe(ssl);
    expect(run.report?.checks.map((c) => c.outcome)).toEqual(['leaked']);
  });
});
