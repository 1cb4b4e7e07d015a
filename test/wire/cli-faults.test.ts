/**
 * Malformed protocol messages against the CLI, in each phase of a run:
 * - discovery (the misbehaving server standalone, the fault at startup or at a query): exit 2
 *   with PROTOCOL_VIOLATION and the bytes, in bounded time, never the password;
 * - a check, and the sweep (the misbehaving server as a proxy in front of real PgBouncer, the
 *   fault in place of the answer to one query of the check, or of the sweep): the run goes on,
 *   the check is inconclusive with the evidence (never a label the fault produced), or the
 *   sweep is not proven clean.
 * A valid answer split into one-byte packets is not flagged. Nothing is left listening.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  FAULT_KINDS,
  startMisbehavingServer,
  type MisbehavingServer,
  type FaultKind,
  type MisbehaviourOptions,
} from '../../fixtures/misbehaving-server.js';
import { startPgBouncer } from '../../fixtures/pgbouncer-fixture.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { runCli, type CliRun } from '../support/cli.js';

const PASSWORD = 'wire-guard-secret';
// trailing-nul (pgagroal's stray byte after a refusal) is played against discovery and a check in
// probe-findings.test.ts, beside the probe-only case it was made for.
const MALFORMED = FAULT_KINDS.filter((k) => k !== 'split' && k !== 'trailing-nul');
const servers: MisbehavingServer[] = [];
/** Faults whose bytes, as a stream's first, are no PostgreSQL message: an unknown type, a length that is no length, HTTP. */
const FOREIGN_FIRST: readonly FaultKind[] = ['unknown-type', 'length-huge', 'garbage'];

/** Runs the CLI against a misbehaving server (closed afterwards) and returns how it ended. */
async function against(
  opts: MisbehaviourOptions,
  args: string[],
  user = 'u',
  database = 'd',
  password = PASSWORD,
): Promise<CliRun & { fired: boolean }> {
  const server = await startMisbehavingServer(opts);
  servers.push(server);
  try {
    const run = await runCli(
      [
        '--target',
        `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${server.port}/${database}`,
        '--timeout',
        '2s',
        ...args,
      ],
      { json: true, timeoutMs: 90_000 },
    );
    return { ...run, fired: server.fired };
  } finally {
    await server.close();
  }
}

afterAll(() => {
  // Every misbehaving server stopped listening and holds no connection. (Asked of the servers
  // themselves: their ephemeral ports may already serve another test file's server.)
  expect(servers.filter((s) => s.listening || s.openConnections > 0).map((s) => s.port)).toEqual([]);
});

describe('a protocol violation during discovery: exit 2, PROTOCOL_VIOLATION, the bytes', () => {
  test.each(
    MALFORMED.flatMap((fault) =>
      (['startup', 1, 2] as const).map((at) => [fault, at] as [FaultKind, 'startup' | number]),
    ),
  )('%s at %s', async (fault, at) => {
    const run = await against({ fault, at }, []);
    expect(run.fired).toBe(true);
    expect(run.signal).toBeNull();
    expect(run.code, run.stderr).toBe(2);
    if (at === 'startup' && FOREIGN_FIRST.includes(fault))
      // Nothing like a PostgreSQL message as the very first bytes: said as a target that does
      // not speak the protocol (test/bad-input/not-postgres.test.ts), the bytes as text.
      expect(run.stderr).toMatch(
        /PROTOCOL_VIOLATION: u@127\.0\.0\.1:\d+\/d does not speak the PostgreSQL protocol: the first bytes it sent were ".+"/,
      );
    else
      expect(run.stderr).toMatch(
        /PROTOCOL_VIOLATION: the target broke the PostgreSQL wire protocol during discovery, before any check could run \(step D \S+: protocol violation by the server: .*bytes at stream offset \d+: [0-9a-f]{2}( [0-9a-f]{2})*/,
      );
    expect(`${run.stdout}${run.stderr}`).not.toContain(PASSWORD);
    // No bound on the whole CLI's time here (issue 21: its start-up alone took over 15 s under
    // load, against 20 s allowed): that the violation, not a 2 s step bound, ended discovery is
    // what PROTOCOL_VIOLATION above says; the runner's 90 s kill (signal null) is the hang guard.
  });

  test('control: a valid startup split into one-byte packets is accepted (discovery completes, no violation)', async () => {
    const run = await against({ fault: 'split', at: 'startup' }, ['--only', 'session/set-leak']);
    expect(run.fired).toBe(true);
    expect(run.signal).toBeNull();
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/PROTOCOL_VIOLATION|protocol violation/);
    // The fake server answers too little for a check to conclude, but discovery got through.
    expect(run.report?.discovery.serverVersion).toBe('16.0');
  });
});

describe('a protocol violation in a check or the sweep (through a proxy in front of PgBouncer)', () => {
  let pgFixture: PostgresFixture;
  let bouncer: PoolerFixture;
  const check = ['--only', 'session/set-leak'];
  const viaProxy = (opts: Omit<MisbehaviourOptions, 'upstream'>): Promise<CliRun & { fired: boolean }> =>
    against({ ...opts, upstream: { port: bouncer.port } }, check, bouncer.user, bouncer.database, bouncer.password);
  let control: CliRun & { fired: boolean };

  beforeAll(async () => {
    pgFixture = await startPostgres();
    bouncer = await startPgBouncer(pgFixture, { poolMode: 'transaction' });
    // Control: the proxy itself changes nothing when its fault never fires.
    control = await viaProxy({ fault: 'garbage', at: 1, match: /never sent by pooltest/ });
  });
  afterAll(async () => {
    await bouncer?.stop();
    await pgFixture?.stop();
  });

  test('control: through the proxy, without a fault, the check is conclusive and the sweep clean', () => {
    expect(control.fired).toBe(false);
    expect(control.code, control.stderr).toBe(0);
    expect(control.report?.checks[0]?.outcome).toBeTruthy();
    expect(control.report?.sweep?.clean).toBe(true);
  });

  test.each(MALFORMED)('%s in a check: the check is inconclusive with the evidence, the run goes on', async (fault) => {
    // The observer's read of the setting: inside the check's steering, after discovery.
    const run = await viaProxy({ fault, at: 1, match: /AS seen/ });
    expect(run.fired).toBe(true);
    expect(run.signal).toBeNull();
    expect([0, 1]).toContain(run.code);
    const result = run.report!.checks.find((c) => c.id === 'session/set-leak')!;
    expect(result.outcome).toBeNull();
    expect(result.reason).toMatch(
      /not conclusive: the target broke the PostgreSQL wire protocol during the check, in step O\d* \S+: protocol violation by the server: .*bytes at stream offset \d+: [0-9a-f]{2}/,
    );
    expect(result.steps.some((s) => s.error?.code === 'PROTOCOL_VIOLATION')).toBe(true);
    // The run went on: the sweep reached the pool and found it clean.
    expect(run.report!.sweep?.clean).toBe(true);
    expect(`${run.stdout}${run.stderr}`).not.toContain(bouncer.password);
    expect(run.ms).toBeLessThan(60_000);
  });

  test.each(['error-terminator-late', 'garbage', 'close-mid-message'] as const)(
    '%s in the sweep: the sweep is not proven clean, naming it',
    async (fault) => {
      const run = await viaProxy({ fault, at: 1, match: /AS any_locks/ });
      expect(run.fired).toBe(true);
      expect(run.signal).toBeNull();
      expect([0, 1]).toContain(run.code);
      // What a misbehaving target said proves nothing either way: unknown, not dirty (exit 0 without --strict).
      expect(run.report!.sweep?.clean).toBe(false);
      expect(run.report!.sweep?.state).toBe('unknown');
      expect(run.report!.sweep?.reason).toMatch(
        /not proven clean: the target broke the PostgreSQL wire protocol during the sweep \(G sweep\.global: protocol violation by the server/,
      );
      // The check ran before the fault: its outcome is the control's.
      expect(run.report!.checks[0]!.outcome).toBe(control.report!.checks[0]!.outcome);
    },
  );
});
