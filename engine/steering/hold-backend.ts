/**
 * Another client on a given backend, kept there: landOn's candidates that missed it are let go
 * at once, so the pool's one free backend is the other one, where the scenario's client must go
 * next. The wire-level checks (copy/in-out, prepared/close) use it between the steps of their
 * client, each landing under its own phase (`close:observe.take`), so the judge reads each one
 * against the backend it aimed at.
 */
import { dismiss, landingHoldMs, type Hold } from './holders.js';
import { landOn } from './land-on.js';
import { LANDING_TAGS } from '../record/tags.js';
import type { Scenario } from './scenario.js';

/**
 * Lands a client on backend `pid` under `phase` (`close:`) and keeps it there; null when no
 * candidate got it (the record says why: a queue, a dedicated backend). `statements` run on the
 * held backend right after its pid is read.
 */
export async function holdBackend(
  scn: Scenario,
  phase: string,
  pid: number,
  statements: string[] = [],
): Promise<Hold | null> {
  const landing = await landOn(scn, pid, {
    tag: `${phase}${LANDING_TAGS.observe}`,
    prefix: `O${phase.replace(/:$/, '')}`,
    statements,
    releaseBy: 'wait',
    holdMs: landingHoldMs(scn.discovery),
  });
  await dismiss(landing.others);
  return landing.observer;
}

/** Ends a hold from {@link holdBackend} (its transaction, then its session). */
export async function letGo(hold: Hold | null): Promise<void> {
  await dismiss([hold]);
}
