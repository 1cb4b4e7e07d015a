/**
 * The step tags of a driver run (driver-scenario.ts), defined once for the writer (the scenario
 * and its agents) and the readers (the judges, the phase split, the server log's attribution).
 * The strings are those every recorded driver log holds (test/recorded/drivers-*.json): a
 * change here would make those records unreadable, so the tags are only named here, never
 * changed. Like the checks' tags (engine/record/tags.ts), each phase's tags carry the phase
 * as a prefix (`moved:A.create`); the steps of no phase (A's connect and close, the engine's
 * markers) carry none. Readers compare whole tags or test the prefix with the helpers below;
 * none matches a tag with a regex.
 */
import { LANDING_TAGS } from '../engine/record/tags.js';

/**
 * The phases of a driver run, in the order they run; each is judged apart. `batch` is the
 * driver's own batch or pipeline call (only drivers that have one: DriverSpec.batch);
 * `migration` is a framework's own migration run (only frameworks that have one:
 * DriverSpec.migration).
 */
export const DRIVER_SCENARIOS = ['moved', 'collision', 'cursor', 'batch', 'migration'] as const;
export type DriverScenarioId = (typeof DRIVER_SCENARIOS)[number];

/** The separator between a phase and the step's own tag, as in the checks' phases. */
const PHASE_END = ':';

/** The prefix of every tag of `scenario`'s phase (`moved:`). */
export function phasePrefix(scenario: DriverScenarioId): string {
  return `${scenario}${PHASE_END}`;
}

/** `base` recorded in `scenario`'s phase (`moved:A.create`). */
export function inPhase(scenario: DriverScenarioId, base: string): string {
  return `${phasePrefix(scenario)}${base}`;
}

/** Whether `tag` was recorded in `scenario`'s phase. */
export function isInPhase(tag: string, scenario: DriverScenarioId): boolean {
  return tag.startsWith(phasePrefix(scenario));
}

/** Whether `tag` belongs to no phase (A's connect and close, the engine's notes and markers). */
export function isPhaseless(tag: string): boolean {
  return !tag.includes(PHASE_END);
}

/**
 * A's steps in the moved and cursor phases: A uses the driver on its backend b1 (`create`, the
 * landing's anchor, so landOn and readLanding read it with the checks' tags), another client is
 * landed on b1 (`observe`), and A uses the driver again (`readback`).
 */
function movedUse(scenario: 'moved' | 'cursor' | 'migration') {
  return {
    create: inPhase(scenario, LANDING_TAGS.create),
    observe: inPhase(scenario, LANDING_TAGS.observe),
    readback: inPhase(scenario, LANDING_TAGS.readback),
  } as const;
}

/** Every tag a driver run records, by phase. */
export const DRIVER_TAGS = {
  /** A's login and logout, outside every phase. */
  connect: 'A.connect',
  close: 'A.close',
  moved: movedUse('moved'),
  cursor: movedUse('cursor'),
  /**
   * A framework's migration: `create` starts it and answers from inside it (the backend it runs
   * on, the one holding its lock), `observe` lands a client on the lock's backend (`hold` keeps
   * the others), `readback` lets the migration finish (its lock released wherever that lands).
   */
  migration: { ...movedUse('migration'), hold: inPhase('migration', 'hold.take') },
  /** B (a second process of the same driver) runs on A's old backend while holders keep the rest. */
  collision: {
    hold: inPhase('collision', 'hold.take'),
    connect: inPhase('collision', 'B.connect'),
    create: inPhase('collision', 'B.create'),
    close: inPhase('collision', 'B.close'),
  },
  /**
   * A sends batches with the driver's own batch call while competitors (W1, W2...) keep asking
   * for backends; each batch statement writes its backend and transaction into a table that a
   * pooltest session (T) creates, reads and drops.
   */
  batch: {
    table: inPhase('batch', 'T.create'),
    /** Before each batch: what it is (run number, in a transaction or not, statements), as facts. */
    intent: inPhase('batch', 'A.intent'),
    run: inPhase('batch', 'A.batch'),
    compete: inPhase('batch', 'W.compete'),
    rows: inPhase('batch', 'T.rows'),
    drop: inPhase('batch', 'T.drop'),
  },
} as const;

/**
 * The steps in which an agent used the driver (A's and B's queries, not logins, holders or
 * pooltest's own sessions): the only steps whose server errors are the driver's.
 */
export const AGENT_USE_TAGS: ReadonlySet<string> = new Set([
  DRIVER_TAGS.moved.create,
  DRIVER_TAGS.moved.readback,
  DRIVER_TAGS.collision.create,
  DRIVER_TAGS.cursor.create,
  DRIVER_TAGS.cursor.readback,
  DRIVER_TAGS.batch.run,
  DRIVER_TAGS.migration.create,
  DRIVER_TAGS.migration.readback,
]);
