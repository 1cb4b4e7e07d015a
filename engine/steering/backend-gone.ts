/**
 * Whether a backend still exists, asked until it is gone or the wait bound passes: what a check
 * records when no client could be placed on a departed client's backend (direct PostgreSQL ends
 * the backend with its client; a pooler may close the server connection), so that its absence
 * is proven from pg_stat_activity rather than assumed.
 */
import { numberOf } from '../record/step-reading.js';
import { sleep } from '../record/time.js';
import { letGo } from './holders.js';
import type { Scenario } from './scenario.js';

/**
 * Opens `label` and reads `alive` (pg_stat_activity rows for `pid`) under `tag` until it is 0 or
 * scn.waitMs passed, then lets it go (closed where a connected client keeps its backend, which
 * the check's next client may need: holders.ts, letGo).
 */
export async function awaitBackendGone(scn: Scenario, label: string, tag: string, pid: number): Promise<void> {
  const p = await scn.open(label);
  const deadline = Date.now() + scn.waitMs;
  try {
    for (;;) {
      const gone = await p.run(
        tag,
        `SELECT pg_backend_pid() AS pid, (SELECT count(*)::int FROM pg_stat_activity WHERE pid = ${pid}) AS alive`,
      );
      if (numberOf(gone, 'alive') !== 1 || Date.now() > deadline) return;
      await sleep(10);
    }
  } finally {
    await letGo(scn, p);
  }
}
