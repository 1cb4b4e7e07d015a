/**
 * The sweep and the summary in words, the same in every format: "clean", "DIRTY" only when
 * something of the run's was found, "unknown" with the reason when the sweep could not look
 * (a pooler that is down proves neither a mess nor its absence), and counts that read right
 * in the singular ("1 check", "1 backend").
 */
import { sweepState, type SweepResult, type SweepState } from '../engine/types.js';
import { endedFinding } from '../engine/sweep/idle.js';

/** `1 check`, `2 checks`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

export interface SweepText {
  state: SweepState;
  /** One sentence without a final period, e.g. `Sweep: clean (2 backends visited via target and direct)`. */
  text: string;
}

export function sweepText(s: SweepResult): SweepText {
  const state = sweepState(s);
  const restored = s.restored?.length
    ? `; pooltest's application_name reset on ${plural(s.restored.length, 'server connection')}`
    : '';
  // What the pooler kept open and the sweep ended: said in every state, with the finding.
  const ended = s.ended?.length ? `; ${endedFinding(s.ended.length)}: ${s.ended.join('; ')}` : '';
  const visited = `${plural(s.backendsVisited.length, 'backend')} visited via ${s.via.join(' and ')}${restored}${ended}`;
  switch (state) {
    case 'clean':
      return { state, text: `Sweep: clean (${visited})` };
    case 'unknown':
      return {
        state,
        text: `Sweep: unknown - could not look for leftovers: ${s.reason ?? 'no reason recorded'}${ended}`,
      };
    default:
      return {
        state,
        text: `Sweep: DIRTY - pooltest left state behind: ${s.leftovers.join('; ')}${s.reason ? ` (and: ${s.reason})` : ''}${ended}`,
      };
  }
}
