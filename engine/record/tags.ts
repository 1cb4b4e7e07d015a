/**
 * The step tags the shared scenarios record and the judges and vetoes read, defined once
 * (a tag may carry a phase prefix, `discard:A.create`, and then each phase is read apart):
 * - the state scenario (state-scenario.ts) and landOn (land-on.ts): A creates state on its
 *   backend (`A.create`), candidates try to land on it (`observe.take`), A reads back
 *   (`A.readback`) and cleans up (`A.cleanup`);
 * - every login of a scenario that fails is noted as `<label>.connect` (scenario.ts);
 * - a step whose tag ends in `cleanup` undoes state, and its errors are reported (execute.ts).
 * Judges, reporters and scenarios use these constants; none matches a tag with a regex.
 */
import type { LandingNeed, SharedScenario } from './check-meta.js';

export const LANDING_TAGS = {
  create: 'A.create',
  observe: 'observe.take',
  readback: 'A.readback',
  cleanup: 'A.cleanup',
  /** The observer lets A's old backend go (its COMMIT, after A's readback). */
  release: 'observe.release',
  /** The look at the wanted backend after a landing candidate queued (land-on.ts). */
  probe: 'observe.probe',
  /** A second landing on A's old backend, after A acted elsewhere (session/discard-all). */
  look: 'look.take',
} as const;

/** The candidates' takes of a landing a diagram draws as a crossing onto A's backend. */
export const CROSSING_TAKES: readonly string[] = [LANDING_TAGS.observe, LANDING_TAGS.look];

/**
 * The landing a check that uses the state scenario, or landOn with its default tags, rests on:
 * the observer's takes tried to reach the backend A created state on.
 */
export const LANDS_ON_A: readonly LandingNeed[] = [{ create: LANDING_TAGS.create, observe: LANDING_TAGS.observe }];

/**
 * The shared state scenario (state-scenario.ts, `runStateScenario`): a check that drives it
 * declares `uses: STATE_SCENARIO` and rests on {@link LANDS_ON_A} without stating it.
 */
export const STATE_SCENARIO: SharedScenario = { name: 'the state scenario', restsOn: LANDS_ON_A };

/**
 * A scenario of a check's own that lands another client on A's backend with landOn's default
 * tags (A's step tagged `A.create`, the candidates' `observe.take`, in any phase): it rests on
 * the same landing as the state scenario.
 */
export const LAND_ON_A: SharedScenario = { name: "landOn on A's backend", restsOn: LANDS_ON_A };

/** The last part of a failed login's tag. */
export const CONNECT_TAG = 'connect';

/** The tag of `label`'s failed login, or of a failed login for the step tagged `label`. */
export function connectTag(label: string): string {
  return `${label}.${CONNECT_TAG}`;
}

const RELEASE = '.release';

/** The tag with which a hold taken under `takeTag` lets its backend go by default (holders.ts). */
export function releaseTagFor(takeTag: string): string {
  return `${takeTag}${RELEASE}`;
}

/** The last part of a cleanup step's tag: such steps are checked for errors after the check. */
export const CLEANUP_TAG = 'cleanup';

/** Whether `tag` is a cleanup step's (`A.cleanup`, `discard:A.cleanup`, `clean.cleanup`). */
export function isCleanupTag(tag: string): boolean {
  return tag.endsWith(CLEANUP_TAG);
}

/** Whether `tag` is cleanup work: a cleanup step, or the release of a hold taken to clean (clean-on.ts). */
export function isCleanupWork(tag: string): boolean {
  return isCleanupTag(tag) || (tag.endsWith(RELEASE) && isCleanupTag(tag.slice(0, -RELEASE.length)));
}

/**
 * The phase prefix under which `tag` is `base` (`set:A.create` is `A.create` under `set:`; a
 * plain `A.create` under ''), or null when `tag` is not `base` in any phase.
 */
export function phaseOf(tag: string, base: string): string | null {
  return tag.endsWith(base) ? tag.slice(0, tag.length - base.length) : null;
}

/** The phase prefix's separator (`set:A.create`); a phase never contains one. */
const PHASE_END = ':';

/** `tag` without its phase prefix (`set:A.create` is `A.create`), for a diagram's short labels. */
export function withoutPhase(tag: string): string {
  return tag.slice(tag.lastIndexOf(PHASE_END) + 1);
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

/**
 * The steps of the `pipeline/*` checks' rounds (steering/pipeline-rounds.ts): C's hold before
 * A's pipeline and its look after it (inside the hold), D's transaction during it. A's own
 * pipeline steps are the checks' (`A.pipe.1`, `A.pipe.2`... one per Sync).
 */
export const PIPELINE_TAGS = {
  hold: 'C.hold',
  look: 'C.look',
  compete: 'D.compete',
  /** A's pipeline; the wire session appends the segment's number. */
  pipe: 'A.pipe',
  /** A's transaction after its pipeline. */
  next: 'A.next',
} as const;

/** The tag of segment `n` (1-based) of a wire exchange tagged `tag`, as the wire session writes it. */
export function segmentTag(tag: string, n: number): string {
  return `${tag}.${n}`;
}

/** pipeline/prepared's Close of its named statement, after the rounds. */
export const PIPELINE_CLOSE_TAG = 'A.close';
