/**
 * What a profile is: the expected outcome per check for one pooler, mode and version, with how
 * each is known. The engine knows no check ids, so here an outcome is any string; the built-in
 * profiles are typed by the catalogue in profiles/expectations.ts (a check id must be a known
 * one and its outcome one of that check's labels, at compile time). An expectations file
 * (runner/expectations.ts) is read into the loose shape and validated at run time instead.
 */

/**
 * How an expectation is known: `observed` on a named version by pooltest's own fixtures (the
 * catalogue tests run it), `documented` by the pooler at a pinned reference, or read in its
 * `source` at a pinned commit. Only built-in profiles must say; an expectations file may not.
 */
export type ExpectationBasis = 'observed' | 'documented' | 'source';

/** Where a profile's expectation comes from; `Label` narrows the outcome to one check's labels. */
export interface Expectation<Label extends string = string> {
  outcome: Label;
  /** A link or a `file:section` in the pooler's own documentation or source, pinned to a version. */
  ref: string;
  note?: string;
  basis?: ExpectationBasis;
  /** For `observed`: the version and setup it was observed on (`PgBouncer 1.18.0, Debian 12 package`). */
  observedOn?: string;
  /**
   * For a check with an outcome per setting (its `audit.perParameter`): the outcome of each
   * setting, keyed lower-case, as the same `ref` says it. The audit and watch join a finding
   * about one of them with it when no report gives the observed one.
   */
  parameters?: Record<string, Label>;
}

/**
 * Expected outcome per check for one pooler, mode and version. `Expect` is the table's type:
 * any check id to any outcome here, the catalogue's ids and labels for the built-in profiles.
 */
export interface Profile<Expect extends Readonly<Record<string, Expectation>> = Record<string, Expectation>> {
  name: string;
  title: string;
  pooler: string;
  mode: string;
  versions: string;
  /** The document the profile as a whole rests on. */
  ref: string;
  expect: Expect;
}
