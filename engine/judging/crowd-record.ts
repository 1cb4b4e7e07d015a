/**
 * Reading the record of a crowd (engine/steering/crowd.ts): one entry per client, saying
 * whether it was served, refused (an error: an SQLSTATE such as 53300, or a pooler hanging up)
 * or left waiting (no answer within its bound). Pure, like every judge helper.
 */
import type { StepRecord } from '../types.js';
import { errorText } from '../record/step-reading.js';

export interface CrowdClient {
  label: string;
  /** The client's work steps, in order (none when it could not connect). */
  work: StepRecord[];
  /** Backends its work ran on, in order, one per answered step that read a pid. */
  pids: number[];
  state: 'served' | 'refused' | 'waited';
  /** The first step that failed or timed out (connection or work), if any. */
  failure: StepRecord | null;
}

/** Groups the steps tagged `connectTag` (failed connections) and `workTag` by client. */
export function readCrowd(steps: readonly StepRecord[], connectTag: string, workTag: string): CrowdClient[] {
  const byLabel = new Map<string, StepRecord[]>();
  for (const s of steps) {
    if (s.tag !== connectTag && s.tag !== workTag) continue;
    const list = byLabel.get(s.session) ?? [];
    list.push(s);
    byLabel.set(s.session, list);
  }
  return [...byLabel.entries()].map(([label, list]): CrowdClient => {
    const failure = list.find((s) => s.timedOut || s.error !== null) ?? null;
    const work = list.filter((s) => s.tag === workTag);
    const pids = work.filter((s) => !s.error && !s.timedOut && s.pid !== null).map((s) => s.pid as number);
    return { label, work, pids, state: failure === null ? 'served' : failure.timedOut ? 'waited' : 'refused', failure };
  });
}

/** The distinct errors of the failed clients, verbatim, with how many clients got each. */
export function errorSummary(clients: readonly CrowdClient[]): string | null {
  const counts = new Map<string, number>();
  for (const c of clients) {
    if (!c.failure) continue;
    const text = c.failure.timedOut ? 'no answer within the bound' : (errorText(c.failure) ?? 'error');
    counts.set(text, (counts.get(text) ?? 0) + 1);
  }
  if (counts.size === 0) return null;
  return [...counts.entries()].map(([text, n]) => `${text} (${n}x)`).join('; ');
}
