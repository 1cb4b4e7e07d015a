/**
 * Marking how a profile's expectations are known (see ExpectationBasis in engine/record/profile.ts).
 * The fixtures' own profiles are derived from their recorded runs (observed-on-fixture.ts), and
 * the catalogue tests run exactly those expectations against the real fixture (test/catalogue);
 * a profile observed on a compatibility column wraps its table in `observed(...)`. A profile
 * that reuses another's table for a version nobody here ran marks it `documented` again.
 */
import type { Expectations } from './catalogue-profile.js';
import { TRACKED_PARAMETERS } from '../suites/session/tracked-parameters.js';

/** Every expectation of `table`, observed on `on`. */
export function observed(on: string, table: Expectations): Expectations {
  return Object.fromEntries(Object.entries(table).map(([id, e]) => [id, { ...e, basis: 'observed', observedOn: on }]));
}

/** `table` as documentation says it (for reuse on a version the fixtures do not run). */
export function documented(table: Expectations): Expectations {
  return Object.fromEntries(
    Object.entries(table).map(([id, e]) => {
      const { observedOn: _dropped, ...rest } = e;
      return [id, { ...rest, basis: 'documented' }];
    }),
  );
}

/**
 * For a `tracked` expectation of `session/tracked-parameter` from documentation: the check also
 * observes with a client that sends no application_name, which documentation rarely covers.
 */
export const NAMELESS_NOTE =
  "Documented for values the client sent; the check also observes with a client that sent no application_name at startup (node-postgres's default), which may be shown the previous client's value, as on PgBouncer 1.18 (leaked). Not observed by pooltest.";

/**
 * session/tracked-parameter's per-parameter data where every parameter has one outcome (a
 * backend per client: `session`). search_path is left out: the audit and watch join its SET
 * with session/search-path-leak.
 */
export function everyParameter<L extends string>(outcome: L): Record<string, L> {
  return Object.fromEntries(TRACKED_PARAMETERS.filter((p) => p.key !== 'search_path').map((p) => [p.key, outcome]));
}
