/**
 * session/tracked-parameter with two kinds of observer: one that sends an application_name at
 * startup (plain tags, as recorded before) and one that sends none (`nameless:` tags). The
 * nameless phase is made here from the recorded named one, changing only what its observer
 * read: PgBouncer 1.18 applies no value for a client that has none, so that observer is shown
 * A's name (observed on the fixture; see the catalogue's expected outcomes).
 */
import { describe, expect, test } from 'vitest';
import { trackedParameter } from '../../suites/session/tracked-parameter.check.js';
import { mutate, recorded, stepsOf, without } from '../support/recorded.js';
import type { StepRecord } from '../../engine/types.js';

const tx = recorded('pgbouncer-transaction').discovery;
const named = (): StepRecord[] => stepsOf('pgbouncer-transaction', 'session/tracked-parameter');

/** The recorded named phase followed by a copy of it as the nameless phase, its observer's reading set by `seen`. */
function withNameless(seen: (tag: string) => { app: string; tz: string }): StepRecord[] {
  const plain = named();
  const tag = /application_name = '([^']+)'/.exec(plain.find((s) => s.tag === 'A.create')!.sql)![1]!;
  const copy = structuredClone(plain).map((s) => ({ ...s, tag: `nameless:${s.tag}` }));
  mutate(copy, 'nameless:observe.take', (s) => {
    for (const rows of s.results)
      for (const r of rows) if ('seen_app' in r) Object.assign(r, { seen_app: seen(tag).app, seen_tz: seen(tag).tz });
  });
  return [...plain, ...copy];
}

describe('session/tracked-parameter: the observer that sends no application_name', () => {
  test('a log without the nameless phase (recorded before it) is judged as before: tracked, plain facts', () => {
    const j = trackedParameter.judge(named(), tx);
    expect(j.outcome).toBe('tracked');
    expect(j.facts).toMatchObject({ otherSawState: false, aKeptState: true, observerOnOldBackend: true });
    expect(typeof j.facts.observerApplicationName).toBe('string');
  });

  test("leaked: the nameless observer is shown A's name although the named one was safe; the facts say what each saw", () => {
    const j = trackedParameter.judge(
      withNameless((tag) => ({ app: tag, tz: 'Etc/UTC' })),
      tx,
    );
    expect(j.outcome).toBe('leaked');
    expect(j.facts).toMatchObject({
      'named.outcome': 'tracked',
      'named.otherSawState': false,
      'nameless.outcome': 'leaked',
      'nameless.otherSawState': true,
      'nameless.observerTimeZone': 'Etc/UTC',
    });
    expect(String(j.facts['nameless.observerApplicationName'])).toMatch(/-session-tracked-parameter$/);
    expect(String(j.facts['named.observerApplicationName'])).not.toMatch(/-session-tracked-parameter$/);
    expect(j.reason).toMatch(/named: tracked .*nameless: leaked/);
  });

  test("leaked by TimeZone alone: the nameless observer is shown A's zone", () => {
    expect(
      trackedParameter.judge(
        withNameless(() => ({ app: '', tz: 'Pacific/Chatham' })),
        tx,
      ).outcome,
    ).toBe('leaked');
  });

  test('tracked: the nameless observer sees an empty name and the server zone (a pooler that resets, or applies defaults)', () => {
    const j = trackedParameter.judge(
      withNameless(() => ({ app: '', tz: 'Etc/UTC' })),
      tx,
    );
    expect(j.outcome).toBe('tracked');
    expect(j.facts).toMatchObject({ 'nameless.outcome': 'tracked', 'nameless.observerApplicationName': '' });
  });

  test("inconclusive: no nameless observer reached A's old backend, so what it would have seen is unknown", () => {
    const steps = withNameless(() => ({ app: '', tz: 'Etc/UTC' }));
    const j = trackedParameter.judge(without(steps, 'nameless:observe.take'), tx);
    expect(j.outcome).toBeNull();
    expect(j.facts['named.outcome']).toBe('tracked');
  });

  test("inconclusive, not tracked: the nameless observer is shown a third client's name (it used A's old backend in between, under load)", () => {
    const j = trackedParameter.judge(
      withNameless(() => ({ app: 'load-2', tz: 'Etc/UTC' })),
      tx,
    );
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/nameless: inconclusive .*application_name = load-2, another client's/);
  });

  test('control: the nameless phase alone decides nothing when the named phase already leaked', () => {
    const steps = withNameless(() => ({ app: '', tz: 'Etc/UTC' }));
    mutate(steps, 'observe.take', (s) => {
      for (const rows of s.results) for (const r of rows) if ('seen_app' in r) r.seen_tz = 'Pacific/Chatham';
    });
    expect(trackedParameter.judge(steps, tx).outcome).toBe('leaked');
  });
});
