/**
 * A malformed reply on a connection discovery opens only to identify the pooler is a finding
 * about the pooler, not a reason to test nothing (issue 18, item 2). The misbehaving server
 * sits as a proxy in front of a real PgBouncer and breaks only that probe's exchange; the run
 * must complete with conclusive checks and the finding in its JSON report. The controls: the
 * same kind of fault on discovery's own client, or on a check's own client, still stops the
 * run (exit 2) or makes that check inconclusive, exactly as before.
 *
 * Regression: pgagroal 1.6.0 refuses a login beyond its pool with an ErrorResponse (53300
 * "connection pool is full") whose declared length leaves out the final terminator; when a
 * holder counting the pool met it, discovery stopped with PROTOCOL_VIOLATION, exit 2.
 *
 * Regression: pgagroal 1.6.0 answers the admin-console login (database `pgbouncer`, which its
 * Postgres does not have) with AuthenticationOk, FATAL 3D000 and then one stray 0x00 byte;
 * pooltest stopped before the first check with `PROTOCOL_VIOLATION ... unknown message
 * ('\x00')`, exit 2, in both of pgagroal's pipelines.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startMisbehavingServer, type MisbehaviourOptions } from '../../fixtures/misbehaving-server.js';
import { startPgBouncer } from '../../fixtures/pgbouncer-fixture.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { runCli, type CliRun } from '../support/cli.js';

const CHECK = 'session/set-leak';

describe('a protocol violation on an optional discovery probe (proxy in front of PgBouncer)', () => {
  let pgFixture: PostgresFixture;
  let bouncer: PoolerFixture;

  /** Runs one check through a misbehaving proxy with `fault`; the proxy is closed afterwards. */
  async function viaProxy(fault: Omit<MisbehaviourOptions, 'upstream'>): Promise<CliRun & { fired: boolean }> {
    const server = await startMisbehavingServer({ ...fault, upstream: { port: bouncer.port } });
    try {
      const url = `postgres://${bouncer.user}:${encodeURIComponent(bouncer.password)}@127.0.0.1:${server.port}/${bouncer.database}`;
      const run = await runCli(['--target', url, '--only', CHECK], {
        json: true,
        timeoutMs: 90_000,
      });
      return { ...run, fired: server.fired };
    } finally {
      await server.close();
    }
  }

  beforeAll(async () => {
    pgFixture = await startPostgres();
    bouncer = await startPgBouncer(pgFixture, { poolMode: 'transaction' });
  });
  afterAll(async () => {
    await bouncer?.stop();
    await pgFixture?.stop();
  });

  test("pgagroal's stray NUL after refusing the admin-console login: the run completes, the check is conclusive, the finding is in the report", async () => {
    const run = await viaProxy({ fault: 'trailing-nul', at: 'startup', database: /^pgbouncer$/ });
    expect(run.fired, run.stderr).toBe(true);
    expect(run.code, run.stderr).toBe(0);
    const report = run.report!;
    // PgBouncer in transaction mode leaks a plain SET: the checks' own clients were unharmed.
    expect(report.checks.find((c) => c.id === CHECK)?.outcome).toBe('leaked');
    expect(report.discovery.mode).toBe('transaction');
    // The probe that broke is the one that would have named the pooler.
    expect(report.discovery.pooler).toBeNull();
    expect(report.discovery.wireFindings).toEqual([
      expect.objectContaining({
        probe: 'discovery.identify',
        session: 'admin',
        direction: 'backend',
        type: '\\x00',
        name: 'unknown message',
        declaredLength: null,
        hex: '00',
      }),
    ]);
    const finding = report.discovery.wireFindings![0]!;
    expect(finding.connection).toMatch(/admin console/);
    expect(finding.consequence).toMatch(/not identified/);
    expect(typeof finding.offset).toBe('number');
    // Shown on the terminal without --verbose, with the bytes (wrapped lines joined).
    expect(run.stdout.replace(/\n +/g, ' ')).toMatch(
      /wire finding: admin discovery\.identify \(.*\): unknown message \('\\x00'\): .*; bytes at stream offset \d+: 00;/,
    );
  });

  test("a malformed answer to the admin console's SHOW VERSION: the same, with the declared and actual length", async () => {
    const run = await viaProxy({ fault: 'length-long', at: 1, match: /^SHOW VERSION$/ });
    expect(run.fired, run.stderr).toBe(true);
    expect(run.code, run.stderr).toBe(0);
    expect(run.report!.checks[0]?.outcome).toBe('leaked');
    expect(run.report!.discovery.wireFindings).toEqual([
      expect.objectContaining({ probe: 'discovery.identify', session: 'admin', type: 'C', name: 'CommandComplete' }),
    ]);
    expect(run.report!.discovery.wireFindings![0]!.declaredLength).toBe(19);
  });

  test('a malformed answer to SHOW pool_version on the first client: a finding; discovery logs that client in again and goes on', async () => {
    const run = await viaProxy({ fault: 'missing-terminator', at: 1, match: /SHOW pool_version/ });
    expect(run.fired, run.stderr).toBe(true);
    expect(run.code, run.stderr).toBe(0);
    expect(run.report!.checks[0]?.outcome).toBe('leaked');
    // The admin console still named PgBouncer: only the broken probe's answer is missing.
    expect(run.report!.discovery.pooler?.name).toBe('PgBouncer');
    expect(run.report!.discovery.wireFindings).toEqual([
      expect.objectContaining({ probe: 'discovery.identify', session: 'D', type: 'E', name: 'ErrorResponse' }),
    ]);
  });

  test('a malformed answer to the stale-backend query on the first client: a finding; D logs in again; the check is conclusive', async () => {
    const run = await viaProxy({ fault: 'length-short', at: 1, match: /stale_pid/ });
    expect(run.fired, run.stderr).toBe(true);
    expect(run.code, run.stderr).toBe(0);
    expect(run.report!.checks[0]?.outcome).toBe('leaked');
    expect(run.report!.discovery.pooler?.name).toBe('PgBouncer');
    expect(run.report!.discovery.wireFindings).toEqual([
      expect.objectContaining({ probe: 'discovery.stale', session: 'D', type: 'S', name: 'ParameterStatus' }),
    ]);
  });

  test("pgagroal's malformed '53300 connection pool is full' to a holder counting the pool: the count ends at the refusal, a finding, the check conclusive", async () => {
    // D, H1 and H2 connected (a pool of 2 taken): the next login is refused as pgagroal does.
    const run = await viaProxy({ fault: 'error-terminator-late', refuseLoginsBeyond: 3 });
    expect(run.fired, run.stderr).toBe(true);
    expect(run.code, run.stderr).not.toBe(2);
    const report = run.report!;
    expect(report.discovery.clientLimit).toEqual(
      expect.objectContaining({ clients: 3, refusal: '53300 sorry, too many clients already' }),
    );
    expect(report.discovery.wireFindings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ probe: 'discovery.hold.connect', session: 'H3', type: 'E', name: 'ErrorResponse' }),
      ]),
    );
    // Each check gives its outcome, or says why it cannot with three clients.
    for (const c of report.checks) expect(c.outcome !== null || c.reason.length > 0, c.id).toBe(true);
  });

  test("control: the same fault on the first query of discovery's own client still stops the run (exit 2)", async () => {
    const run = await viaProxy({ fault: 'trailing-nul', at: 1, match: /server_version/ });
    expect(run.fired, run.stderr).toBe(true);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /PROTOCOL_VIOLATION: the target broke the PostgreSQL wire protocol during discovery, before any check could run \(step D discovery\.server: protocol violation by the server/,
    );
  });

  test("control: the same fault on a check's own client makes that check inconclusive, and is no discovery finding", async () => {
    const run = await viaProxy({ fault: 'trailing-nul', at: 1, match: /AS seen/ });
    expect(run.fired, run.stderr).toBe(true);
    expect([0, 1]).toContain(run.code);
    const result = run.report!.checks.find((c) => c.id === CHECK)!;
    expect(result.outcome).toBeNull();
    expect(result.reason).toMatch(/the target broke the PostgreSQL wire protocol during the check/);
    expect(run.report!.discovery.wireFindings).toBeUndefined();
  });
});
