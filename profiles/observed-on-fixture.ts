/**
 * The fixtures' observed profiles, derived from their recorded runs: the outcome of each check
 * is what the fixture showed (fixture-outcomes.ts, written by the recorders from test/recorded),
 * and the profile states only what a person decided about it: the reference and note of each
 * expectation, and the checks it leaves out on purpose, with why. A check recorded on the
 * fixture that nobody has written anything about yet is expected too, with the profile's own
 * reference, so a new check's outcomes on the fixtures are written once, by the recording.
 */
import type { Expectation } from '../engine/record/profile.js';
import { CATALOGUE } from '../suites/catalogue.js';
import { CHECK_IDS, type CheckId } from '../suites/labels.js';
import type { ExpectationOf, Expectations, RecordedOutcomes } from './catalogue-profile.js';
import { FIXTURE_OUTCOMES } from './fixture-outcomes.js';

/** A fixture with recorded runs. */
export type Fixture = keyof typeof FIXTURE_OUTCOMES;

/** What a person decides about one observed expectation; its outcome is the recording's. */
export type Decision<C extends CheckId> = Omit<ExpectationOf<C>, 'outcome' | 'basis' | 'observedOn'>;

/** Decisions keyed by known check ids, in the order the profile lists them. */
export type Decisions = { readonly [C in CheckId]?: Decision<C> };

export interface FixtureBasis {
  fixture: Fixture;
  /** The version and setup the fixture runs (each expectation's `observedOn`). */
  on: string;
  /** The reference of a recorded check nobody has chosen one for yet: the profile's own. */
  ref: string;
  /** Recorded checks the profile does not expect, each with why (the outcome is not the pooler's promise). */
  leaveOut?: { readonly [C in CheckId]?: string };
}

/**
 * The expectations taken from a recording with nobody's reference: another profile that reuses
 * a fixture's table for a version or a pooler the check never ran on carries only what was
 * decided (decidedOnly), not a new check's outcome observed on this fixture alone.
 */
const UNDECIDED = new WeakSet<object>();

/** `table` without the expectations nobody has written a reference for (see UNDECIDED). */
export function decidedOnly(table: Expectations): Expectations {
  return Object.fromEntries(Object.entries(table).filter(([, e]) => !UNDECIDED.has(e)));
}

/**
 * Checks a profile never states: those that conclude only with a fixture of their own
 * (`requires: ['fixture']`), which a run through --target skips.
 */
function fixtureOnly(id: CheckId): boolean {
  const check = CATALOGUE.find((c) => c.id === id) as { requires?: readonly string[] } | undefined;
  return check?.requires?.includes('fixture') ?? false;
}

/**
 * The observed table of the profile run on `basis.fixture`: the decided checks in their order,
 * then the other recorded ones in catalogue order. A decision about a check the fixture has no
 * conclusive recording of, or one the profile also leaves out, stops pooltest from loading with
 * the reason (as the audit claims' index does): a reference for an outcome nobody saw is a
 * mistake in the source, and every test that loads the profiles names it.
 */
export function observedOnFixture(basis: FixtureBasis, decided: Decisions): Expectations {
  const recorded: RecordedOutcomes = FIXTURE_OUTCOMES[basis.fixture];
  const ids = [...(Object.keys(decided) as CheckId[]), ...CHECK_IDS.filter((id) => !Object.hasOwn(decided, id))];
  const table: Record<string, Expectation> = {};
  for (const id of ids) {
    const decision = decided[id] as Decision<CheckId> | undefined;
    const outcome = recorded[id];
    const skip = basis.leaveOut?.[id] !== undefined || fixtureOnly(id);
    if (decision && (skip || outcome === undefined || outcome === null))
      throw new Error(
        `profile of fixture ${basis.fixture}: ${id} has a reference but ${skip ? 'is left out' : 'no conclusive recorded outcome'}; record it (npm run record -- test/recorded ${id}) or drop its entry`,
      );
    if (skip || outcome === undefined || outcome === null) continue;
    table[id] = { outcome, ref: basis.ref, ...decision, basis: 'observed', observedOn: basis.on };
    if (!decision) UNDECIDED.add(table[id]);
  }
  return table;
}
