/**
 * The labels of the state checks (the judge in state-judge.ts decides between them), with
 * their meanings (whether a label breaks an application is a property of the word, in
 * suites/outcome-breaks.ts).
 * Each state check declares `outcomes: stateOutcomes({ ...its advice })`, so the vocabulary is
 * written once here and the advice once in each check.
 */
import type { OutcomeInfo } from '../record/check-meta.js';

export const STATE_OUTCOMES = {
  session: {
    means: 'the state stayed with its client and nobody else saw it, on a backend of its own (direct, session pooling)',
  },
  leaked: { means: 'another client observed the state, whatever happened to its owner' },
  lost: { means: 'the state vanished for its client and nobody else saw it (the pooler reset it)' },
  tracked: {
    means: 'the state followed its client onto another backend and nobody else saw it (the pooler replays it)',
  },
  pinned: { means: 'the pooler kept the client on its backend after the statement' },
  rejected: { means: 'the pooler or the server refused the statement itself' },
} as const satisfies Record<string, OutcomeInfo>;

export type StateLabel = keyof typeof STATE_OUTCOMES;

/** The state labels in the order the judge and the docs list them. */
export const STATE_LABELS = Object.keys(STATE_OUTCOMES) as StateLabel[];

/**
 * The state labels worst first, for checks that try several forms and report the worst
 * (judging/phases.ts): state reaching another client is a hole; losing it breaks the
 * application quietly; a refusal or a pin is loud; replayed or kept state is what it promises.
 */
export const STATE_WORST_FIRST: readonly StateLabel[] = ['leaked', 'lost', 'rejected', 'pinned', 'tracked', 'session'];

/** The state vocabulary with one check's advice per label. */
export function stateOutcomes(advice: Partial<Record<StateLabel, string>>): Record<StateLabel, OutcomeInfo> {
  const out = {} as Record<StateLabel, OutcomeInfo>;
  for (const label of STATE_LABELS) {
    const a = advice[label];
    out[label] = { ...STATE_OUTCOMES[label], ...(a !== undefined ? { advice: a } : {}) };
  }
  return out;
}
