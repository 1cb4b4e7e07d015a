/**
 * session/discard-all: `missed`, `reset` (on the client's own backend, or a clean old backend
 * after a reset elsewhere), `ignored`, `rejected`, the worse of the two phases, and the
 * inconclusive paths, from recorded logs and their mutations.
 */
import { describe, expect, test } from 'vitest';
import { phaseSteps } from '../../engine/judging/phases.js';
import { discardAll, judgePhase } from '../../suites/session/discard-all.check.js';
import { mutate, without } from '../support/recorded.js';
import { judgesToRecordedOutcomes, setColumn, stateDiscovery, stateSteps } from '../support/state-recorded.js';
import type { StepRecord } from '../../engine/types.js';

const ID = 'session/discard-all';
const tx = stateDiscovery('pgbouncer-transaction');
const direct = stateDiscovery('direct');
const phase = (fixture: Parameters<typeof stateSteps>[0], name = 'discard') =>
  phaseSteps(stateSteps(fixture, ID), name);
const valueOf = (steps: StepRecord[]) => /'(pooltest-[^']+)'/.exec(steps.find((s) => s.tag === 'A.create')!.sql)![1]!;

judgesToRecordedOutcomes(discardAll);

describe(`${ID}: labels`, () => {
  test('missed on PgBouncer transaction: the reset ran elsewhere and the next client on the old backend saw the state', () => {
    const j = judgePhase(phase('pgbouncer-transaction'), tx);
    expect(j.outcome).toBe('missed');
    expect(j.facts).toMatchObject({ oldBackendHeldDuringReset: true, otherSawState: true, aStillHasState: false });
  });
  test('missed under statement pooling, where the hold is one long statement (timing, not order)', () => {
    const j = judgePhase(phase('pgbouncer-statement', 'reset'), stateDiscovery('pgbouncer-statement'));
    expect(j.outcome).toBe('missed');
  });
  test('reset with server_reset_query_always: the old backend was already clean', () => {
    const j = judgePhase(
      phase('pgbouncer-transaction-reset-always'),
      stateDiscovery('pgbouncer-transaction-reset-always'),
    );
    expect(j.outcome).toBe('reset');
    expect(j.facts).toMatchObject({ oldBackendHeldDuringReset: true, otherSawState: false });
  });
  test("reset on direct Postgres: the reset ran on the client's own backend", () => {
    const j = judgePhase(phase('direct'), direct);
    expect(j.outcome).toBe('reset');
    expect(j.facts).toMatchObject({ aNextBackend: j.facts.aBackend, aStillHasState: false });
  });
  test('ignored: on its own backend, A still had the state after its reset', () => {
    const steps = phase('direct');
    expect(judgePhase(setColumn(steps, 'A.readback', 'mine', valueOf(steps)), direct).outcome).toBe('ignored');
  });
  test('rejected: the pooler refused the statement, or hung up on it', () => {
    const coded = mutate(
      phase('pgbouncer-transaction'),
      'A.reset',
      (s) => (s.error = { code: '0A000', message: 'DISCARD ALL is not supported' }),
    );
    expect(judgePhase(coded, tx).outcome).toBe('rejected');
    const closed = mutate(
      phase('pgbouncer-transaction'),
      'A.reset',
      (s) => (s.error = { message: 'Connection terminated unexpectedly' }),
    );
    expect(judgePhase(closed, tx).outcome).toBe('rejected');
  });
  test('the check reports the worse phase: missed over reset', () => {
    const steps = stateSteps('pgbouncer-transaction', ID);
    setColumn(steps, 'reset:look.take', 'seen', '');
    const j = discardAll.judge(steps, tx);
    expect(j.facts).toMatchObject({ 'discard.outcome': 'missed', 'reset.outcome': 'reset' });
    expect(j.outcome).toBe('missed');
  });
});

describe(`${ID}: inconclusive`, () => {
  const txPhase = () => phase('pgbouncer-transaction');
  const b1 = () => txPhase().find((s) => s.tag === 'A.create')!.pid;
  // Seen on Odyssey 1.5.1 (PostgreSQL 18): the first candidate got the other backend and was let
  // go before A's reset; the judge read that COMMIT as the end of the hold on b1 (inconclusive).
  test("concludes: a first candidate on the other backend was let go before A's reset, and its COMMIT is not the holder's", () => {
    const steps = txPhase();
    const holder = steps.find((s) => s.tag === 'observe.take' && s.pid === b1())!;
    const reset = steps.find((s) => s.tag === 'A.reset')!;
    const elsewhere = steps.find((s) => s.tag === 'A.readback')!.pid;
    const missed: StepRecord = { ...holder, session: 'H0', pid: elsewhere, seq: holder.seq - 0.5 };
    const letGo: StepRecord = {
      ...steps.find((s) => s.tag === 'observe.take.release')!,
      session: 'H0',
      seq: (holder.seq + reset.seq) / 2,
    };
    const j = judgePhase([missed, letGo, ...steps], tx);
    expect(j.outcome).toBe('missed');
    expect(j.facts).toMatchObject({ oldBackendHeldDuringReset: true });
  });
  test.each<[string, () => StepRecord[], typeof tx, RegExp]>([
    [
      'A could not set its state',
      () => mutate(txPhase(), 'A.create', (s) => (s.pid = null)),
      tx,
      /could not set its state/,
    ],
    [
      "A's reset timed out",
      () => mutate(txPhase(), 'A.reset', (s) => ((s.timedOut = true), (s.error = { message: 'no answer' }))),
      tx,
      /reset did not answer/,
    ],
    ["A's next statement is missing", () => without(txPhase(), 'A.readback'), tx, /next statement did not answer/],
    [
      'A ran on its old backend while a holder had it',
      () => mutate(txPhase(), 'A.readback', (s) => (s.pid = b1())),
      tx,
      /while another client held it/,
    ],
    [
      'the reset ran after the holder let go',
      () => mutate(txPhase(), 'observe.take.release', (s) => (s.seq = 2.5)),
      tx,
      /did not run while backend \d+ was held/,
    ],
    ['nobody looked at the old backend afterwards', () => without(txPhase(), 'look.take'), tx, /nobody looked/],
    [
      'nobody held the old backend and A moved',
      () => mutate(without(txPhase(), 'observe.take'), 'A.readback', (s) => (s.pid = 1)),
      tx,
      /nobody held/,
    ],
    [
      'A stayed, but nothing proves no other client could use its backend',
      () => phase('pgbouncer-session').filter((s) => s.tag !== 'observe.probe'),
      stateDiscovery('pgbouncer-session'),
      /nothing proves/,
    ],
  ])('%s', (_name, steps, d, reason) => {
    const j = judgePhase(steps(), d);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(reason);
  });
});
