/**
 * Waiting for a target to answer again after an outage: a new session runs `SELECT 1` until
 * it works or the bound passes. Used between checks, so a check that ran into a restarting
 * pooler or server is inconclusive, and the ones after it run once the target is back.
 */
import { sleep } from '../record/time.js';
import { Scenario, type RunContext } from './scenario.js';

const PAUSE_MS = 200;

/** Resolves true once the target answered, false when `boundMs` passed first. Never throws. */
export async function untilAnswering(ctx: RunContext, boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    const scn = new Scenario(ctx);
    try {
      const s = await scn.open('W', {
        connectMs: Math.min(ctx.bounds.connectMs, Math.max(100, deadline - Date.now())),
      });
      const step = await s.run('wait.answering', 'SELECT 1 AS one');
      if (!step.error) return true;
    } catch {
      // Refused, reset, timed out: still down.
    } finally {
      await scn.closeAll();
    }
    await sleep(PAUSE_MS);
  }
  return false;
}
