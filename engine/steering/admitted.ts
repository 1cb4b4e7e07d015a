/**
 * Opening sessions through a pooler that refuses clients at capacity (53300 "Sorry, too many
 * clients already", "no more connections allowed") instead of queueing them. Discovery reads
 * such a refusal as the pool's boundary; see record/capacity-refusal.ts.
 */
import { PooltestError } from '../record/errors.js';
import { isCapacityRefusal } from '../record/capacity-refusal.js';
import type { Session } from '../session/session.js';
import { sleep } from '../record/time.js';
import type { Scenario } from './scenario.js';

/**
 * Opens a session, retrying (bounded by `boundMs`) while the pooler refuses at capacity: a
 * pooler that admits one client at a time may not have noticed yet that the previous one left.
 */
export async function openWhenAdmitted(scn: Scenario, label: string, boundMs: number): Promise<Session> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    try {
      return await scn.open(label);
    } catch (err) {
      const sqlstate = err instanceof PooltestError ? err.detail.sqlstate : null;
      const refused = isCapacityRefusal({
        message: err instanceof Error ? err.message : String(err),
        ...(typeof sqlstate === 'string' ? { code: sqlstate } : {}),
      });
      if (!refused) throw err;
      if (Date.now() >= deadline)
        throw new PooltestError(
          'TARGET_FULL',
          `${err instanceof Error ? err.message : String(err)} (refused at capacity for ${boundMs} ms: other clients hold the pooler's every client slot)`,
          err instanceof PooltestError ? err.detail : {},
        );
      await sleep(50);
    }
  }
}

/** Like Scenario.tryOpen, but a refusal at capacity is `'refused'` (recorded), not thrown. */
export async function openOrRefused(
  scn: Scenario,
  label: string,
  connectMs: number,
  tag: string,
): Promise<Session | null | 'refused'> {
  try {
    return await scn.tryOpen(label, tag, connectMs);
  } catch (err) {
    const step = scn.steps[scn.steps.length - 1];
    if (step?.tag === tag && isCapacityRefusal(step.error)) return 'refused';
    throw err;
  }
}
