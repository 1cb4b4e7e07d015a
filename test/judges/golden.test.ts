/**
 * Every recorded log against the outcome written by hand for it (golden-expectations.ts), not
 * against the outcome its judge recorded: if a judge drifts, or a log was recorded by a judge
 * that was already wrong, the hand-written table disagrees. The table must cover every check
 * of every recorded file, so a new recording cannot slip in unchecked. Where a recording's fixture
 * runs a profile of its name, the table and the profile state an outcome twice; they are held to
 * agree, so neither can drift alone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { CATALOGUE } from '../../suites/catalogue.js';
import type { Profile } from '../../engine/profile.js';
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

test('the hand-written table covers every recorded file and check, and nothing else', () => {
  expect(Object.keys(GOLDEN).sort()).toEqual(files);
  for (const name of files) {
    const run = JSON.parse(readFileSync(path.join(DIR, `${name}.json`), 'utf8')) as RecordedFile;
    expect(Object.keys(GOLDEN[name]!).sort(), name).toEqual(Object.keys(run.checks).sort());
    for (const [id, [, why]] of Object.entries(GOLDEN[name]!))
      expect(why.length, `${name} ${id}: a justification`).toBeGreaterThan(20);
  }
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
