/**
 * The built-in profiles' type, derived from the catalogue: an expectation's key must be a check
 * id of suites/catalogue.ts and its outcome (and each per-parameter outcome) one of that check's
 * declared labels, so a typo or a label the check cannot report fails `npm run build`, not a
 * run. The labels come from the check files' own `outcomes` (suites/labels.ts), so adding a
 * label there is all it takes for a profile to name it. test/types/profile-types.ts holds the
 * controls that must not compile.
 */
import type { Expectation, Profile } from '../engine/record/profile.js';
import type { CheckId, OutcomeOf } from '../suites/labels.js';

/** An expectation of check `C`: its outcome is one of `C`'s labels. */
export type ExpectationOf<C extends CheckId> = Expectation<OutcomeOf<C>>;

/** A table of expectations keyed by known check ids, each with its own check's labels. */
export type Expectations = { readonly [C in CheckId]?: ExpectationOf<C> };

/** A built-in profile: a {@link Profile} whose table is typed by the catalogue. */
export type CatalogueProfile = Profile<Expectations>;

/** What one fixture showed per check in its recorded runs; null where a run was inconclusive. */
export type RecordedOutcomes = { readonly [C in CheckId]?: OutcomeOf<C> | null };
