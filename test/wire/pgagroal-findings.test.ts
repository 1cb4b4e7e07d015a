/**
 * Against a real pgagroal 1.6.0, built from its release tarball (fixtures/pooler-build.ts): the
 * run gets past discovery, names pgagroal, and every check gives an outcome or a specific reason;
 * a malformed reply from pgagroal is a wire finding of an optional probe, never the end of the run.
 *
 * What pgagroal 1.6.0 sends that the wire guard refuses: a stray 0x00 byte after each refusal it
 * makes before a login (its `pgagroal_write_empty`: after "connection refused" to the protocol
 * 2.0 startup discovery's fingerprint sends, after refusing the admin-console login), and an
 * ErrorResponse 53300 "connection pool is full" declared one byte short, when it refuses a login
 * beyond its pool (played by test/wire/probe-findings.test.ts as well).
 *
 * Why discovery does not ask pgagroal's admin console: pgagroal makes room for a login to a
 * database it has no pool for (`pgbouncer`) by closing one of its idle pooled server
 * connections, which would change the pool discovery is counting. (With the fixture's first
 * login racing pgagroal's prefill, that login left it refusing everyone: the regression below.)
 */
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { poolerBuildUnavailable } from '../../fixtures/pooler-build.js';
import type { Stack } from '../../fixtures/stack.js';
import { sharedPostgres } from '../support/shared-postgres.js';
import type { Report } from '../../engine/types.js';
import { runCli } from '../support/cli.js';

const UNAVAILABLE = await poolerBuildUnavailable('pgagroal');
const OPTIONAL_PROBES = ['discovery.identify', 'discovery.stale', 'discovery.room.connect', 'discovery.hold.connect'];
const SKIP = UNAVAILABLE ? ` (skipped: ${UNAVAILABLE})` : '';

/** The reason every check gave when pgagroal had stopped answering: it says nothing about the check. */
const GENERIC_SILENCE = /^(not conclusive: )?(session not usable: )?no answer within \d+ ms$/;

// One PostgreSQL for the whole file, each describe block's pgagroal in front of it in turn.
const { postgres, useStack } = sharedPostgres(UNAVAILABLE === null);

function expectEveryCheckAnswered(report: Report): void {
  for (const c of report.checks) {
    expect(c.outcome !== null || c.reason.length > 0, c.id).toBe(true);
    if (c.verdict === 'inconclusive') expect(c.reason, c.id).not.toMatch(GENERIC_SILENCE);
  }
  for (const f of report.discovery.wireFindings ?? []) expect(OPTIONAL_PROBES).toContain(f.probe);
}

describe.skipIf(UNAVAILABLE !== null)(`pgagroal 1.6.0, transaction pipeline${SKIP}`, () => {
  const stack = useStack('pgagroal-transaction');

  test('the whole catalogue: pgagroal named, its fingerprint finding reported, every check concluded or saying why, its profile passing', async () => {
    const run = await runCli(
      ['--target', stack().target.url(), '--timeout', '5s', '--profile', 'pgagroal-transaction'],
      {
        json: true,
        timeoutMs: 240_000,
      },
    );
    const report = run.report!;
    // No expectation of the observed profile failed (inconclusive ones do not count).
    expect(report.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.id}: ${c.outcome} (${c.reason})`)).toEqual(
      [],
    );
    // Exit 1 is then the sweep's: it may find state left on a server connection pgagroal never
    // resets (seen once in four runs), or fail to look when pgagroal refuses its logins (53300).
    expect(run.code === 0 || (run.code === 1 && report.sweep?.state === 'dirty'), run.stderr).toBe(true);
    expect(report.discovery.mode).toBe('transaction');
    expect(report.discovery.poolSize).toBe(2);
    expect(report.discovery.pooler?.name).toBe('pgagroal');
    expect(report.discovery.notes.join('\n')).toMatch(/admin console was not asked: pgagroal 1\.6\.0/);
    const fingerprint = report.discovery.wireFindings?.find((f) => f.session === 'fingerprint');
    expect(fingerprint).toMatchObject({ probe: 'discovery.identify', hex: '00', offset: 20 });
    expectEveryCheckAnswered(report);
    // Not blind: the session-state checks, which rest on well-formed exchanges, all concluded.
    const concluded = report.checks.filter((c) => c.outcome !== null);
    expect(concluded.length, report.checks.map((c) => `${c.id}: ${c.reason}`).join('\n')).toBeGreaterThanOrEqual(15);
    expect(report.checks.find((c) => c.id === 'session/set-leak')?.outcome).toBe('leaked');
  }, 260_000);
});

// Regression (fixtures/pgagroal-fixture.ts): the fixture's first login raced pgagroal's prefill,
// which left a worker waiting for a server connection for good and pgagroal's count of active
// connections wrong; the next login to a database it has no pool for (the admin console's
// `pgbouncer`) then closed both pooled connections and the count fell below zero (65534 of 2):
// every later client was refused with 53300, and logged-in clients' transactions got no answer.
// That was the "no answer" behind every inconclusive check. A pgagroal of its own: a fresh start
// (after that login the same pgagroal could not be discovered: tried, the run ended with exit 2).
describe.skipIf(UNAVAILABLE !== null)(`pgagroal 1.6.0, transaction pipeline, a fresh start${SKIP}`, () => {
  const stack = useStack('pgagroal-transaction');

  test('a login to a database pgagroal has no pool for is refused, and pgagroal goes on serving the next clients', async () => {
    const login = async (database: string): Promise<string> => {
      const client = new pg.Client({ ...stack().target, database, connectionTimeoutMillis: 5_000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT 1');
        return 'ok';
      } catch (err) {
        return (err as { code?: string }).code ?? String(err);
      } finally {
        // end() of a client whose login failed may never settle.
        await Promise.race([client.end().catch(() => undefined), new Promise((r) => setTimeout(r, 1_000))]);
      }
    };
    expect(await login(stack().target.database)).toBe('ok');
    // The control: refused (Postgres has no such database), so the login did reach pgagroal's pool.
    expect(await login('pgbouncer')).toBe('3D000');
    expect(await login(stack().target.database)).toBe('ok');
    expect(await login(stack().target.database)).toBe('ok');
  }, 40_000);
});

describe.skipIf(UNAVAILABLE !== null)(`pgagroal 1.6.0, session pipeline${SKIP}`, () => {
  const stack = useStack('pgagroal-session');

  // The quick checks of the observed profile (a check whose second client waits at login takes
  // 3.5 to 7 s here, a whole run 100 to 195 s: see bench/compatibility-targets.ts; the whole run
  // is the compatibility column's, in test/catalogue/compatibility.test.ts).
  const QUICK = ['session/set-leak', 'temp/on-commit-drop', 'locks/advisory-xact', 'statement/transaction-block'];

  test('discovery names pgagroal; the quick checks pass its observed profile or say why not; any wire finding is an optional probe', async () => {
    const run = await runCli(
      ['--target', stack().target.url(), '--timeout', '5s', '--profile', 'pgagroal-session', '--only', QUICK.join(',')],
      { json: true, timeoutMs: 120_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/PROTOCOL_VIOLATION/);
    const report = run.report!;
    expect(report.discovery.mode).toBe('session');
    expect(report.discovery.pooler?.name).toBe('pgagroal');
    expect(report.checks.map((c) => c.id).sort()).toEqual([...QUICK].sort());
    expectEveryCheckAnswered(report);
    // Not blind: set-leak's third client is the one that waits; the others need no third client.
    expect(report.checks.filter((c) => c.verdict === 'pass').length).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
