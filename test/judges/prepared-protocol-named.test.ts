/**
 * prepared/protocol-named: `failed` (42P05 for the other client, 26000 for A's Bind-only second
 * use), `works` (A's own backend, or re-prepared elsewhere by a pooler), `rejected`, and the
 * inconclusive paths.
 */
import { describe, expect, test } from 'vitest';
import { judgeProtocolNamed, protocolNamed } from '../../suites/prepared/protocol-named.check.js';
import { mutate, without } from '../support/recorded.js';
import { judgesToRecordedOutcomes, stateDiscovery, stateSteps } from '../support/state-recorded.js';
import type { StepRecord } from '../../engine/types.js';

const ID = 'prepared/protocol-named';
const tx = stateDiscovery('pgbouncer-transaction');
const txSteps = () => stateSteps('pgbouncer-transaction', ID);
const b1 = () => txSteps().find((s) => s.tag === 'A.create')!.pid!;
/** What a pooler that tracks statements shows: the other client prepares freely, A's second use works on b2. */
function tracked(onBackend: number): StepRecord[] {
  const steps = mutate(
    txSteps(),
    'observe.prepare',
    (s) => ((s.error = null), (s.results = [[{ pid: b1(), answer: 42 }]])),
  );
  return mutate(
    steps,
    'A.readback',
    (s) => ((s.error = null), (s.pid = onBackend), (s.results = [[{ pid: onBackend, answer: 42 }]])),
  );
}

judgesToRecordedOutcomes(protocolNamed);

describe(`${ID}: labels`, () => {
  test("failed on PgBouncer 1.18 transaction pooling: the other client collided with A's name (42P05)", () => {
    const j = judgeProtocolNamed(txSteps(), tx);
    expect(j.outcome).toBe('failed');
    expect(j.facts).toMatchObject({ otherSawName: true, aSecondUseSentParse: false });
    expect(j.facts.otherPrepareError).toMatch(/^42P05/);
    expect(j.facts.aSecondUseError).toMatch(/^26000/);
  });
  test("failed on A's second use alone (26000), as under statement pooling", () => {
    const j = judgeProtocolNamed(stateSteps('pgbouncer-statement', ID), stateDiscovery('pgbouncer-statement'));
    expect(j.outcome).toBe('failed');
    expect(j.reason).toMatch(/Bind\/Execute only/);
    expect(judgeProtocolNamed(without(txSteps(), 'observe.prepare'), tx).outcome).toBe('failed');
  });
  test('works on direct Postgres and session pooling: A kept its backend', () => {
    expect(judgeProtocolNamed(stateSteps('direct', ID), stateDiscovery('direct')).outcome).toBe('works');
    expect(judgeProtocolNamed(stateSteps('pgbouncer-session', ID), stateDiscovery('pgbouncer-session')).outcome).toBe(
      'works',
    );
  });
  test("works when the pooler prepared it again on A's new backend", () => {
    const j = judgeProtocolNamed(tracked(b1() + 1), tx);
    expect(j.outcome).toBe('works');
    expect(j.facts).toMatchObject({ aSecondUseBackend: b1() + 1, otherPrepareError: null });
  });
  test('rejected: the first use failed with an SQLSTATE', () => {
    const steps = mutate(
      txSteps(),
      'A.create',
      (s) => (s.error = { code: '08P01', message: 'prepared statements are not supported' }),
    );
    expect(judgeProtocolNamed(steps, tx).outcome).toBe('rejected');
  });
});

describe(`${ID}: inconclusive`, () => {
  test.each<[string, () => StepRecord[], typeof tx, RegExp]>([
    ['the first use has no pid', () => mutate(txSteps(), 'A.create', (s) => (s.pid = null)), tx, /first use failed/],
    [
      'the second use is missing',
      () => without(without(txSteps(), 'A.readback'), 'observe.prepare'),
      tx,
      /did not answer/,
    ],
    [
      'the second use lost its connection',
      () =>
        mutate(
          without(txSteps(), 'observe.prepare'),
          'A.readback',
          (s) => (s.error = { message: 'Connection terminated' }),
        ),
      tx,
      /did not answer/,
    ],
    [
      'the second use failed otherwise',
      () =>
        mutate(
          without(txSteps(), 'observe.prepare'),
          'A.readback',
          (s) => (s.error = { code: '57014', message: 'canceling statement' }),
        ),
      tx,
      /gave no answer/,
    ],
    [
      "A's second use ran on its old backend while another client held it",
      () => tracked(b1()),
      tx,
      /while another client held it/,
    ],
    [
      'A stayed, but nothing proves no other client could use its backend',
      () => stateSteps('pgbouncer-session', ID).filter((s) => s.tag !== 'observe.probe'),
      stateDiscovery('pgbouncer-session'),
      /nothing proves/,
    ],
  ])('%s', (_name, steps, d, reason) => {
    const j = judgeProtocolNamed(steps(), d);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(reason);
  });
});
