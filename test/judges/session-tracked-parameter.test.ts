/**
 * session/tracked-parameter judges each parameter on its own, from the recorded runs: on
 * PgBouncer 1.18 TimeZone, DateStyle, client_encoding and standard_conforming_strings follow
 * their client, IntervalStyle stays on the server connection (tracked only from 1.20), and
 * application_name is shown to an observer that sent none at startup. The check's outcome is
 * the worst parameter's. Mutations of the recorded readings give the other cases.
 */
import { describe, expect, test } from 'vitest';
import { trackedParameter } from '../../suites/session/tracked-parameter.check.js';
import { mutate, recorded, stepsOf, without } from '../support/recorded.js';
import type { StepRecord } from '../../engine/types.js';

const tx = recorded('pgbouncer-transaction').discovery;
const steps = (): StepRecord[] => structuredClone(stepsOf('pgbouncer-transaction', 'session/tracked-parameter'));

/** Sets what the observers of `tags` read in `column`. */
function observerReads(s: StepRecord[], tags: string[], column: string, value: string): StepRecord[] {
  for (const tag of tags)
    mutate(s, tag, (step) => {
      for (const rows of step.results) for (const r of rows) if (column in r) r[column] = value;
    });
  return s;
}

/** The recorded run with IntervalStyle and application_name behaving, so only `column` decides. */
function allTracked(): StepRecord[] {
  const s = observerReads(steps(), ['observe.take', 'nameless:observe.take'], 'seen_intervalstyle', 'postgres');
  mutate(s, 'A.readback', (step) => {
    for (const rows of step.results)
      for (const r of rows) if ('mine_intervalstyle' in r) r.mine_intervalstyle = 'iso_8601';
  });
  mutate(s, 'nameless:A.readback', (step) => {
    for (const rows of step.results)
      for (const r of rows) if ('mine_intervalstyle' in r) r.mine_intervalstyle = 'iso_8601';
  });
  return observerReads(s, ['nameless:observe.take'], 'seen_app', '');
}

describe('session/tracked-parameter: one outcome per parameter', () => {
  test('PgBouncer 1.18 (recorded): four parameters tracked, IntervalStyle and application_name leaked', () => {
    const j = trackedParameter.judge(steps(), tx);
    expect(j.outcome).toBe('leaked');
    expect(j.facts).toMatchObject({
      'TimeZone.outcome': 'tracked',
      'DateStyle.outcome': 'tracked',
      'client_encoding.outcome': 'tracked',
      'standard_conforming_strings.outcome': 'tracked',
      'IntervalStyle.outcome': 'leaked',
      'IntervalStyle.named.seen': 'iso_8601',
      'application_name.outcome': 'leaked',
      'application_name.named': 'tracked',
      'application_name.nameless': 'leaked',
      'TimeZone.named.seen': 'Etc/UTC',
      'TimeZone.nameless.kept': true,
      'named.observerOnOldBackend': true,
    });
    // search_path is reported by PostgreSQL 18 only; this server is older.
    expect(j.facts['search_path.outcome']).toBeNull();
    expect(String(j.facts['search_path.notObserved'])).toMatch(/does not report search_path/);
    expect(j.reason).toMatch(/^application_name: leaked, TimeZone: tracked, DateStyle: tracked, IntervalStyle: leaked/);
  });

  test('tracked overall only when every parameter is: IntervalStyle and the nameless name made to behave', () => {
    const j = trackedParameter.judge(allTracked(), tx);
    expect(j.outcome).toBe('tracked');
    expect(j.facts['IntervalStyle.outcome']).toBe('tracked');
    expect(j.facts['application_name.outcome']).toBe('tracked');
  });

  test('control: one parameter alone makes the check leaked (TimeZone shown to the nameless observer)', () => {
    const s = observerReads(allTracked(), ['nameless:observe.take'], 'seen_tz', 'Pacific/Chatham');
    const j = trackedParameter.judge(s, tx);
    expect(j.outcome).toBe('leaked');
    expect(j.facts).toMatchObject({
      'TimeZone.outcome': 'leaked',
      'TimeZone.named': 'tracked',
      'DateStyle.outcome': 'tracked',
    });
  });

  test('lost: A no longer has its DateStyle on the other backend, nobody else saw it', () => {
    const s = allTracked();
    for (const tag of ['A.readback', 'nameless:A.readback'])
      mutate(s, tag, (step) => {
        for (const rows of step.results) for (const r of rows) if ('mine_datestyle' in r) r.mine_datestyle = 'ISO, MDY';
      });
    const j = trackedParameter.judge(s, tx);
    expect(j.facts['DateStyle.outcome']).toBe('lost');
    expect(j.outcome).toBe('lost');
  });

  test('inconclusive while a parameter is, unless another already leaked', () => {
    const s = allTracked();
    mutate(s, 'nameless:observe.take', (step) => {
      for (const rows of step.results) for (const r of rows) delete r['seen_scs'];
    });
    const j = trackedParameter.judge(s, tx);
    expect(j.facts['standard_conforming_strings.outcome']).toBeNull();
    expect(j.outcome).toBeNull();
    // The recorded run leaked IntervalStyle: a missing reading hides nothing worse.
    const leaked = steps();
    mutate(leaked, 'nameless:observe.take', (step) => {
      for (const rows of step.results) for (const r of rows) delete r['seen_scs'];
    });
    expect(trackedParameter.judge(leaked, tx).outcome).toBe('leaked');
  });

  test("inconclusive: no nameless observer reached A's old backend", () => {
    const j = trackedParameter.judge(without(allTracked(), 'nameless:observe.take'), tx);
    expect(j.outcome).toBeNull();
    expect(j.facts['TimeZone.named']).toBe('tracked');
  });

  test("inconclusive, not tracked: the nameless observer is shown a third client's name (under load)", () => {
    const j = trackedParameter.judge(observerReads(allTracked(), ['nameless:observe.take'], 'seen_app', 'load-2'), tx);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/application_name = load-2, another client's/);
  });

  test('a log recorded before the per-parameter observation (application_name and TimeZone only) is judged on those two', () => {
    const s = steps().filter((x) => !x.tag.startsWith('nameless:'));
    mutate(s, 'run.markers', (step) => {
      for (const rows of step.results)
        for (const r of rows)
          for (const k of Object.keys(r)) if (k !== 'application_name' && k !== 'timezone') delete r[k];
    });
    const j = trackedParameter.judge(s, tx);
    expect(j.outcome).toBe('tracked');
    expect(j.facts['DateStyle.notObserved']).toBe('not in this record');
  });
});
