/**
 * Type-level tests of the check contract, compiled by `npm run build` (tsconfig.json includes
 * test/types; nothing here runs). A judge returns its check's own labels: each `@ts-expect-error`
 * below marks a definition that must NOT compile, and tsc fails the build if one of them ever
 * does ("unused @ts-expect-error directive"). The definitions without the directive are the
 * controls: the same shapes with a declared label, which must compile, so that the errors are
 * about the label and nothing else.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { worstOf } from '../../engine/judging/phases.js';
import { judgeState } from '../../engine/judging/state-judge.js';
import { stateOutcomes, type StateLabel } from '../../engine/judging/state-outcomes.js';
import type { Judgement } from '../../engine/types.js';

const base = {
  id: 'types/example',
  title: 'a type-level example',
  summary: 'never run',
  severity: 'correctness',
  docs: [],
  async scenario() {},
} as const;

const OUTCOMES = {
  kept: { means: 'the state stayed' },
  leaked: { means: 'another client saw it' },
} satisfies Record<string, OutcomeInfo>;

/** Control: a declared label, unknown and skipped all compile. */
export const declared = defineCheck({
  ...base,
  outcomes: OUTCOMES,
  judge: (steps) =>
    steps.length === 0
      ? { outcome: null, facts: {}, reason: 'nothing recorded' }
      : steps.length === 1
        ? { outcome: null, facts: {}, reason: 'cannot apply', skipped: true }
        : { outcome: 'leaked', facts: {}, reason: 'seen' },
});

export const undeclaredInline = defineCheck({
  ...base,
  outcomes: OUTCOMES,
  // @ts-expect-error 'lost' is not one of this check's labels (kept, leaked).
  judge: () => ({ outcome: 'lost', facts: {}, reason: 'gone' }),
});

/** A judge written apart from its check, typed by the check's labels, as the suites do. */
function judgeApart(): Judgement<keyof typeof OUTCOMES> {
  return { outcome: 'kept', facts: {}, reason: 'kept' };
}
export const apart = defineCheck({ ...base, outcomes: OUTCOMES, judge: judgeApart });

/** A judge of a wider vocabulary: it may return a label this check does not declare. */
function judgeWider(): Judgement<'kept' | 'leaked' | 'lost'> {
  return { outcome: 'lost', facts: {}, reason: 'gone' };
}
// @ts-expect-error judgeWider may return 'lost', which this check does not declare.
export const wider = defineCheck({ ...base, outcomes: OUTCOMES, judge: judgeWider });

/** A judge that returns a bare string widens every label: not a check's judge any more. */
function judgeUntyped(): Judgement {
  return { outcome: 'kept', facts: {}, reason: 'kept' };
}
// @ts-expect-error Judgement<string> is not Judgement<'kept' | 'leaked'>.
export const untyped = defineCheck({ ...base, outcomes: OUTCOMES, judge: judgeUntyped });

/** The shared state judge returns the state labels: a state check compiles with it... */
export const stateCheck = defineCheck({
  ...base,
  outcomes: stateOutcomes({}),
  judge: (steps, d) => judgeState(steps, d, { seenByOther: () => null, keptByA: () => null }),
});

/** ...and a check declaring fewer labels than the state judge reaches does not. */
export const stateJudgeOnFewerLabels = defineCheck({
  ...base,
  outcomes: OUTCOMES,
  // @ts-expect-error judgeState may return 'session', 'lost'... which this check does not declare.
  judge: (steps, d) => judgeState(steps, d, { seenByOther: () => null, keptByA: () => null }),
});

/** worstOf keeps the phases' labels, and ranks only labels the phases can have. */
export const worst: Judgement<StateLabel> = worstOf<StateLabel>([], ['leaked', 'session']);
// @ts-expect-error 'misrouted' is not a state label.
export const worstWrongRank = worstOf<StateLabel>([], ['leaked', 'misrouted']);
