/**
 * What a check concludes (a judgement: a label, unknown or skipped), and the words a report
 * puts on it: its severity and the verdict against an expectation.
 */
import type { Facts } from './step-record.js';

/** How bad it is when the hazard bites: the grouping used by reports. */
export type Severity = 'security' | 'correctness' | 'availability';

/**
 * `pass`/`fail` against an expectation, `observed` when nothing was expected (schema 2; schema 1
 * called that `pass`), `inconclusive`, `skipped`. Combining: fail > inconclusive > pass > observed.
 */
export type Verdict = 'pass' | 'fail' | 'observed' | 'inconclusive' | 'skipped';

/**
 * What a judge concludes from a recorded scenario: one of three (as Jepsen's valid / unknown),
 * typed by the check's own labels (`Label`, the keys of its `outcomes`):
 * - a label, with the facts behind it and a short statement of what was seen;
 * - unknown (`outcome: null`): the record supports no label, and `reason` says why
 *   (the check is inconclusive);
 * - skipped (`outcome: null, skipped: true`): the record shows the check cannot apply to this
 *   target (for example the login may not `SET ROLE` to any role), and `reason` says why. Only
 *   for what a scenario had to query to find out; what the run context shows belongs in `skipIf`.
 */
export type Judgement<Label extends string = string> = Labelled<Label> | Unknown | Skipped;

interface JudgementBase {
  facts: Facts;
  /** Why the judgement is inconclusive or skipped, or a short statement of what was seen. */
  reason: string;
}

/** The record reads as one of the check's labels. */
export interface Labelled<Label extends string = string> extends JudgementBase {
  outcome: Label;
  skipped?: false;
}

/** The record supports no label: inconclusive, with its reason. */
export interface Unknown extends JudgementBase {
  outcome: null;
  skipped?: false;
}

/** The check cannot apply to this target, as its record shows. */
export interface Skipped extends JudgementBase {
  outcome: null;
  skipped: true;
}
