/**
 * Which outcome labels break an application that was written for a direct connection: a
 * property of the label word, written once here for the whole product (a label means the same
 * in every check that reports it, so its checks do not say it again). `pooltest diff` and
 * `--compare` use it to call a change a break or a fix, the audit and watch to say whether a
 * statement would break, and the docs' label table shows it. The type below makes a label that
 * some check reports and this table leaves out a compile error; test/profiles/labels.test.ts
 * also fails on it, and on a word here that no check reports any more. A label nobody declares
 * is `unknown`, never guessed.
 */
import type { CatalogueCheck } from './catalogue.js';

/** `true`: the application sees a difference; `false`: it keeps its meaning; or unknown. */
export type OutcomeBreaks = boolean | 'unknown';

/** Every label word some check of the catalogue may report (distributed over the checks). */
type CatalogueLabel = CatalogueCheck extends infer C
  ? C extends { outcomes: infer O }
    ? keyof O & string
    : never
  : never;

/** Whether each label word breaks an application, grouped by the checks that introduced it. */
export const OUTCOME_BREAKS = {
  // The state vocabulary (engine/judging/state-outcomes.ts).
  session: false,
  leaked: true,
  lost: true,
  tracked: false,
  // Pinning keeps the semantics; it costs multiplexing, not correctness.
  pinned: false,
  rejected: true,
  // session/set-local, session/reset-on-disconnect, session/discard-all
  scoped: false,
  reset: false,
  missed: true,
  ignored: true,
  // temp/on-commit-drop, prepared/protocol-named
  works: false,
  failed: true,
  // locks/*
  exclusive: false,
  shared: true,
  released: true,
  // notify/listen, cancel/routing
  delivered: false,
  misrouted: true,
  dropped: true,
  routed: false,
  // transactions/abandoned, statement/transaction-block
  'rolled-back': false,
  inherited: true,
  allowed: false,
  split: true,
  // capacity/*: waiting and sharing backends are what a pooler is for.
  queued: false,
  unlimited: false,
  multiplexed: false,
  'one-per-client': false,
  absorbed: false,
  overflowed: true,
  faster: false,
  slower: false,
  same: false,
  // auth/stale-password
  'old-accepted': true,
  refreshed: false,
  // protocol/negotiation: a client that cannot connect at all is broken; negotiating down is
  // what the protocol provides for.
  served: false,
  negotiated: false,
  refused: true,
  malformed: true,
  // prepared/close: a re-Parse after Close that runs the new text keeps the meaning; the old
  // text running instead does not. copy/in-out, prepared/close and pipeline/*: an answer that
  // never comes hangs the client; a COPY answered otherwise than by PostgreSQL changes the data.
  honoured: false,
  stale: true,
  stalled: true,
  mismatched: true,
  // pipeline/*: a pipeline answered out of order, or a client left broken, breaks its client.
  ordered: false,
  misordered: true,
  recovered: false,
  broken: true,
  clean: false,
} as const satisfies Record<CatalogueLabel, boolean>;

/** Maps an outcome label (null when the check was inconclusive or skipped) to breaks, fine or unknown. */
export function outcomeBreaks(outcome: string | null): OutcomeBreaks {
  if (outcome === null) return 'unknown';
  return Object.hasOwn(OUTCOME_BREAKS, outcome)
    ? (OUTCOME_BREAKS as Readonly<Record<string, boolean>>)[outcome]!
    : 'unknown';
}

/**
 * Labels the checks report that the table leaves out, and words of the table that no check
 * reports (both must be none).
 */
export function vocabularyGaps(
  checks: readonly { id: string; outcomes: object }[],
  table: Readonly<Record<string, boolean>> = OUTCOME_BREAKS,
): string[] {
  const used = new Set(checks.flatMap((c) => Object.keys(c.outcomes)));
  return [
    ...checks.flatMap((c) =>
      Object.keys(c.outcomes)
        .filter((label) => !Object.hasOwn(table, label))
        .map((label) => `${c.id}: "${label}" has no breaks entry in suites/outcome-breaks.ts`),
    ),
    ...Object.keys(table)
      .filter((label) => !used.has(label))
      .map((label) => `"${label}" is in suites/outcome-breaks.ts but no check reports it`),
  ];
}
