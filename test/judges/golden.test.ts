/**
 * Every recorded log against the outcome written by hand for it (golden-expectations.ts), not
 * against the outcome its judge recorded: if a judge drifts, or a log was recorded by a judge
 * that was already wrong, the hand-written table disagrees. The table covers every recorded file,
 * and each check it states wherever that check was recorded; a check added since states its
 * fixtures' outcomes once, in its recordings, with a judge test of its own. Where a recording's
 * fixture runs a profile of its name, that profile is derived from the recordings
 * (profiles/observed-on-fixture.ts), and the table is held to agree with it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { CATALOGUE } from '../../suites/catalogue.js';
import type { Profile } from '../../engine/record/profile.js';
import type { Discovery, StepRecord } from '../../engine/types.js';
import { PROFILES } from '../../profiles/index.js';
import { REPO } from '../support/cli.js';
import { GOLDEN, type Golden } from './golden-expectations.js';

interface RecordedFile {
  discovery: Discovery;
  /** Traffic recordings: the max_connections = 25 stack capacity/burst ran on. */
  burstDiscovery?: Discovery;
  checks: Record<string, { steps: StepRecord[] }>;
}

const DIR = path.join(REPO, 'test/recorded');
/**
 * Catalogue recordings ({ discovery, checks }). The measured checks' recordings (one file per
 * check, keyed by fixture: connect-churn.json, stale-password.json) have judge tests of their
 * own with expectations written by hand (test/judges/capacity-connect-churn.test.ts,
 * auth-stale-password.test.ts).
 */
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .filter((f) => 'checks' in (JSON.parse(readFileSync(path.join(DIR, f), 'utf8')) as object))
  .map((f) => f.replace(/\.json$/, ''))
  .sort();

test('the hand-written table covers every recorded file, each check it states everywhere it is recorded', () => {
  expect(Object.keys(GOLDEN).sort()).toEqual(files);
  const runs = files.map(
    (name) => [name, JSON.parse(readFileSync(path.join(DIR, `${name}.json`), 'utf8')) as RecordedFile] as const,
  );
  const tabled = new Set(Object.values(GOLDEN).flatMap((rows) => Object.keys(rows)));
  for (const [name, run] of runs) {
    const recorded = Object.keys(run.checks);
    // Nothing stated that was not recorded there; a check stated anywhere is stated wherever it was recorded.
    expect(
      Object.keys(GOLDEN[name]!).filter((id) => !recorded.includes(id)),
      name,
    ).toEqual([]);
    expect(
      recorded.filter((id) => tabled.has(id) && !Object.hasOwn(GOLDEN[name]!, id)),
      name,
    ).toEqual([]);
    for (const [id, [, why]] of Object.entries(GOLDEN[name]!))
      expect(why.length, `${name} ${id}: a justification`).toBeGreaterThan(20);
  }
});

/**
 * A check added after this table states its fixtures' outcomes once, in its recordings (which
 * rejudge.test.ts holds to their judge); what a person writes by hand about its judge is its own
 * judge test, test/judges/<area>-<name>.test.ts, which must exist.
 */
test('a recorded check the table does not state has a judge test of its own', () => {
  const tabled = new Set(Object.values(GOLDEN).flatMap((rows) => Object.keys(rows)));
  const recorded = new Set(
    files.flatMap((name) =>
      Object.keys((JSON.parse(readFileSync(path.join(DIR, `${name}.json`), 'utf8')) as RecordedFile).checks),
    ),
  );
  const judgeTests = new Set(readdirSync(path.join(REPO, 'test/judges')));
  expect([...recorded].filter((id) => !tabled.has(id) && !judgeTests.has(`${id.replace('/', '-')}.test.ts`))).toEqual(
    [],
  );
});

/**
 * Where a recording was made on a fixture that runs the built-in profile of its name
 * (`pgbouncer-transaction-state` on `pgbouncer-transaction`), the table and the profile state
 * the same fact twice: how many outcomes both state, and each one they disagree on.
 */
function againstProfiles(
  golden: Record<string, Golden>,
  profiles: readonly Profile[],
): { compared: number; differ: string[] } {
  let compared = 0;
  const differ: string[] = [];
  for (const [log, rows] of Object.entries(golden)) {
    const profile = profiles.find((p) => p.name === log.replace(/-(state|traffic)$/, ''));
    if (!profile) continue;
    for (const [id, [outcome]] of Object.entries(rows)) {
      const expected = profile.expect[id]?.outcome;
      if (expected === undefined) continue;
      compared++;
      if (expected !== outcome) differ.push(`${log} ${id}: ${outcome} here, ${expected} in profile ${profile.name}`);
    }
  }
  return { compared, differ };
}

describe("the table and the fixtures' profiles", () => {
  test('agree on every outcome both state', () => {
    const { compared, differ } = againstProfiles(GOLDEN, PROFILES);
    expect(differ).toEqual([]);
    // Most of the state and traffic recordings' checks are stated by their fixture's profile.
    expect(compared).toBeGreaterThan(100);
  });

  test('control: a profile that says otherwise is named, with both outcomes', () => {
    const changed = PROFILES.map((p) =>
      p.name === 'pgbouncer-transaction'
        ? {
            ...p,
            expect: { ...p.expect, 'session/set-leak': { ...p.expect['session/set-leak']!, outcome: 'session' } },
          }
        : p,
    );
    expect(againstProfiles(GOLDEN, changed).differ).toEqual([
      'pgbouncer-transaction session/set-leak: leaked here, session in profile pgbouncer-transaction',
    ]);
  });
});

describe.each(files)('%s', (name) => {
  const run = JSON.parse(readFileSync(path.join(DIR, `${name}.json`), 'utf8')) as RecordedFile;
  const cases = Object.entries(GOLDEN[name] ?? {}).map(([id, [outcome, why]]) => [id, outcome, why] as const);
  test.each(cases)('%s -> %s (%s)', (id, outcome) => {
    const def = CATALOGUE.find((c) => c.id === id);
    expect(def, `unknown check ${id}`).toBeDefined();
    const discovery = {
      ...(id === 'capacity/burst' && run.burstDiscovery ? run.burstDiscovery : run.discovery),
      steps: [],
    };
    expect(def!.judge(run.checks[id]!.steps, discovery).outcome).toBe(outcome);
  });
});
