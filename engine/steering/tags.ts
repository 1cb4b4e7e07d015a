/**
 * The step tags the shared scenarios record and the judges and vetoes read, defined once
 * (a tag may carry a phase prefix, `discard:A.create`, and then each phase is read apart):
 * - the state scenario (state-scenario.ts) and landOn (land-on.ts): A creates state on its
 *   backend (`A.create`), candidates try to land on it (`observe.take`), A reads back
 *   (`A.readback`) and cleans up (`A.cleanup`);
 * - every login of a scenario that fails is noted as `<label>.connect` (scenario.ts).
 */
import type { LandingNeed } from '../check.js';

export const LANDING_TAGS = {
  create: 'A.create',
  observe: 'observe.take',
  readback: 'A.readback',
  cleanup: 'A.cleanup',
  /** The look at the wanted backend after a landing candidate queued (land-on.ts). */
  probe: 'observe.probe',
} as const;

/**
 * The landing a check that uses the state scenario, or landOn with its default tags, rests on:
 * the observer's takes tried to reach the backend A created state on. Such a check declares
 * `restsOn: LANDS_ON_A` instead of writing the literal again.
 */
export const LANDS_ON_A: readonly LandingNeed[] = [{ create: LANDING_TAGS.create, observe: LANDING_TAGS.observe }];

/** The last part of a failed login's tag. */
export const CONNECT_TAG = 'connect';

/** The tag of `label`'s failed login. */
export function connectTag(label: string): string {
  return `${label}.${CONNECT_TAG}`;
}

/** Whether `tag` is a failed login's (`connect`, `A.connect`). */
export function isConnectTag(tag: string): boolean {
  return tag === CONNECT_TAG || tag.endsWith(`.${CONNECT_TAG}`);
}

/** The probe's tag for a landing whose takes are tagged `takeTag` (same phase and prefix). */
export function probeTagFor(takeTag: string): string {
  return isLandingTake(takeTag) ? `${takeTag.slice(0, -LANDING_TAGS.observe.length)}${LANDING_TAGS.probe}` : takeTag;
}

/** Whether `tag` is a landing candidate's take (`observe.take`, in any phase). */
export function isLandingTake(tag: string): boolean {
  return tag.endsWith(LANDING_TAGS.observe);
}
