/**
 * The contracts a check states as data hold for what it really records, and the rule that
 * ties a check's id to its files is enforced:
 * - a check whose record has an observer landing on A's backend declares that its conclusion
 *   rests on it (`restsOn`), so the engine's veto never depends on a tag name by accident;
 * - every declared landing appears in some real recorded run (no dead declarations);
 * - a check that uses a shared scenario inherits its landings unless it states its own;
 * - `suites/<id>.check.ts` defines check `<id>`, with `suites/<id>.test.ts` beside it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { CATALOGUE } from '../../suites/catalogue.js';
import { checkFileProblems } from '../../runner/check-files.js';
import { REPO } from '../support/cli.js';
import type { StepRecord } from '../../engine/types.js';
import { defineCheck } from '../../engine/execute/check.js';
import { LAND_ON_A, LANDING_TAGS, LANDS_ON_A, STATE_SCENARIO } from '../../engine/record/tags.js';

const RECORDED = path.join(REPO, 'test/recorded');

/** Every recorded run's steps per check id, over all recorded fixtures. */
function recordedSteps(): Map<string, StepRecord[][]> {
  const byId = new Map<string, StepRecord[][]>();
  for (const file of readdirSync(RECORDED).filter((f) => f.endsWith('.json'))) {
    const run = JSON.parse(readFileSync(path.join(RECORDED, file), 'utf8')) as {
      checks?: Record<string, { steps: StepRecord[] } | StepRecord[]>;
    };
    // One-check recordings keyed by fixture (the measured checks) have no landings to declare.
    if (!run.checks) continue;
    for (const [id, c] of Object.entries(run.checks)) {
      const steps = Array.isArray(c) ? c : c.steps;
      byId.set(id, [...(byId.get(id) ?? []), steps]);
    }
  }
  return byId;
}

/** Whether a record has an observer landing (`[phase:]observe.take`) next to `[phase:]A.create`. */
function hasLanding(steps: readonly StepRecord[], create: string, observe: string): boolean {
  const tags = new Set(steps.map((s) => s.tag));
  return [...tags].some((t) => {
    const at = t === observe ? '' : t.endsWith(`:${observe}`) ? t.slice(0, -observe.length) : null;
    return at !== null && tags.has(`${at}${create}`);
  });
}

describe('check contracts', () => {
  const runs = recordedSteps();

  test("a check whose record lands an observer on A's backend declares that it rests on it", () => {
    const undeclared = CATALOGUE.filter(
      (c) =>
        !c.restsOn?.length &&
        (runs.get(c.id) ?? []).some((s) => hasLanding(s, LANDING_TAGS.create, LANDING_TAGS.observe)),
    ).map((c) => c.id);
    expect(undeclared).toEqual([]);
  });

  // A check not recorded yet (just scaffolded by npm run new-check) has no run to hold its
  // declaration to; golden.test.ts takes it up once `npm run record` has recorded it.
  test('every declared landing is found in some real recorded run of its check', () => {
    const dead = CATALOGUE.filter((c) => runs.has(c.id)).flatMap((c) =>
      (c.restsOn ?? [])
        .filter((n) => !(runs.get(c.id) ?? []).some((s) => hasLanding(s, n.create, n.observe)))
        .map((n) => `${c.id}: ${n.create} / ${n.observe}`),
    );
    expect(dead).toEqual([]);
  });

  test('a check that uses a shared scenario rests on its landings, unless it states its own', () => {
    const def = {
      id: 'types/example',
      title: 'an example',
      summary: 'never run',
      severity: 'correctness',
      docs: [],
      outcomes: { seen: { means: 'seen' } },
      async scenario() {},
      judge: () => ({ outcome: null, facts: {}, reason: 'never judged' }),
    } as const;
    expect(defineCheck({ ...def, uses: STATE_SCENARIO }).restsOn).toEqual(LANDS_ON_A);
    expect(defineCheck({ ...def, uses: LAND_ON_A }).restsOn).toEqual(LANDS_ON_A);
    // A check's own statement wins, even an empty one: it rests on no landing then.
    expect(defineCheck({ ...def, uses: STATE_SCENARIO, restsOn: [] }).restsOn).toEqual([]);
    expect(defineCheck(def).restsOn).toBeUndefined();
    // Every shared-scenario check of the catalogue got its scenario's landings, not a copy.
    const users = CATALOGUE.filter((c) => c.uses !== undefined);
    expect(users.length).toBeGreaterThan(0);
    for (const c of users) expect(c.restsOn, c.id).toBe(c.uses!.restsOn);
  });

  test('each check lives at suites/<id>.check.ts with its Vitest file beside it', () => {
    expect(checkFileProblems(path.join(REPO, 'suites'), CATALOGUE, '.ts')).toEqual([]);
    for (const c of CATALOGUE) expect(existsSync(path.join(REPO, 'suites', `${c.id}.check.ts`)), c.id).toBe(true);
  });

  test('control: a check defined in a file that does not match its id is reported, with the rule', () => {
    const problems = checkFileProblems(path.join(REPO, 'suites'), [{ id: 'session/not-here' }], '.ts');
    expect(problems).toEqual([expect.stringMatching(/session\/not-here.*suites\/session\/not-here\.test\.ts/)]);
  });
});
