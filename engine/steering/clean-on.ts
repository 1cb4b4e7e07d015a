/**
 * Cleaning one backend after the fact: land on it again and run the cleanup there, guarded by
 * its pid so a miss touches nothing. Used where cleanup could not ride along with the
 * observer's take (LISTEN: unlistening first would hide the very misrouting being tested).
 */
import { landOn } from './land-on.js';
import { releaseAll } from './holders.js';
import { cleanupBlock } from './state-scenario.js';
import type { Scenario } from './scenario.js';

export async function cleanOn(scn: Scenario, pid: number, cleanup: string): Promise<void> {
  const landing = await landOn(scn, pid, {
    prefix: 'C',
    tag: 'clean.cleanup',
    statements: [cleanupBlock(cleanup, pid)],
    releaseBy: 'wait',
    holdMs: 100,
  });
  await releaseAll([landing.observer, ...landing.others]);
}
