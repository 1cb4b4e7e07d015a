/**
 * Every recorded log against the outcome written by hand for it (golden-expectations.ts), not
 * against the outcome its judge recorded: if a judge drifts, or a log was recorded by a judge
 * that was already wrong, the hand-written table disagrees. The table must cover every check
 * of every recorded file, so a new recording cannot slip in unchecked.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { CATALOGUE } from '../../suites/catalogue.js';
import type { Discovery, StepRecord } from '../../engine/types.js';
import { REPO } from '../support/cli.js';
import { GOLDEN } from './golden-expectations.js';

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
