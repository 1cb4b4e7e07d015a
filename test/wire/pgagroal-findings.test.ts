/**
 * Against a real pgagroal (each `pgagroal*` stack of fixtures/stack.ts, once the fixtures
 * have one): the run gets past discovery and every check gives an outcome or says why not;
 * a malformed reply, if pgagroal sends one, is a wire finding of an optional probe, never the
 * end of the run. pgagroal 1.6.0 follows its refusal of the admin-console login (database
 * `pgbouncer`) with a stray 0x00 byte when its PostgreSQL accepts the login without a password
 * exchange (then it forwards AuthenticationOk and FATAL 3D000 read in one go); with SCRAM it
 * relays the refusal cleanly. Until a pgagroal stack exists this file skips and says why.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { STACK_NAMES, startStack, type Stack } from '../../fixtures/stack.js';
import { runCli } from '../support/cli.js';

const PGAGROAL = STACK_NAMES.filter((n) => n.startsWith('pgagroal'));
const SKIP =
  PGAGROAL.length === 0
    ? 'no pgagroal stack in fixtures/stack.ts yet: the real-pgagroal wire-finding test is skipped'
    : null;
const OPTIONAL_PROBES = ['discovery.identify', 'discovery.stale', 'discovery.room.connect'];

test.runIf(SKIP !== null)('says why the real-pgagroal wire-finding test is skipped', () => {
  console.warn(SKIP);
});

describe.skipIf(SKIP !== null).each(PGAGROAL)('%s', (name) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(name);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test('discovery completes; a check gives an outcome or its reason; any wire finding is an optional probe', async () => {
    const run = await runCli(['--target', stack.target.url(), '--timeout', '5s', '--only', 'session/set-leak'], {
      json: true,
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr).not.toBe(2);
    expect(run.stderr).not.toMatch(/PROTOCOL_VIOLATION/);
    const report = run.report!;
    expect(report.checks).toHaveLength(1);
    for (const c of report.checks) expect(c.outcome !== null || c.reason.length > 0, c.id).toBe(true);
    for (const f of report.discovery.wireFindings ?? []) expect(OPTIONAL_PROBES).toContain(f.probe);
  });
});
