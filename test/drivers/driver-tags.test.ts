/**
 * The drivers' step tags are named once (drivers/tags.ts) and the strings are those the recorded
 * driver logs hold: a renamed tag would leave every stored record unreadable, so the module is
 * held to the records and to the strings written out here by hand. The server log's attribution
 * (server-log.ts) reads the same constants: an error logged on a step's backend while it ran is
 * attached to exactly the agents' uses of the driver, never to pooltest's own holders.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { attachServerErrors, SERVER_LOG } from '../../drivers/server-log.js';
import { AGENT_USE_TAGS, DRIVER_SCENARIOS, DRIVER_TAGS, isInPhase, isPhaseless } from '../../drivers/tags.js';
import type { DriversReport } from '../../drivers/run-drivers.js';

const load = (stack: string) =>
  JSON.parse(readFileSync(new URL(`../recorded/drivers-${stack}.json`, import.meta.url), 'utf8')) as DriversReport;
const reports = [load('pgbouncer-transaction'), load('direct')];
const recordedTags = new Set(reports.flatMap((r) => r.records.flatMap((x) => x.steps.map((s) => s.tag))));

/** Every leaf string of DRIVER_TAGS. */
const leaves = (o: object): string[] =>
  Object.values(o).flatMap((v: unknown) => (typeof v === 'string' ? [v] : leaves(v as object)));

/** The agents' uses as the records have always named them (the writer's strings, by hand). */
const AGENT_USES = [
  'moved:A.create',
  'moved:A.readback',
  'collision:B.create',
  'cursor:A.create',
  'cursor:A.readback',
  'batch:A.batch',
  'migration:A.create',
  'migration:A.readback',
];

describe('driver step tags', () => {
  test('every tag the module names is in the recorded logs, with the same string', () => {
    expect(recordedTags.size).toBeGreaterThan(10);
    const named = leaves(DRIVER_TAGS);
    expect(named.filter((t) => !recordedTags.has(t))).toEqual([]);
    expect(named).toEqual(
      expect.arrayContaining([...AGENT_USES, 'A.connect', 'A.close', 'collision:hold.take', 'moved:observe.take']),
    );
    expect([...AGENT_USE_TAGS].sort()).toEqual([...AGENT_USES].sort());
  });

  test('every phased tag of the records is of one of the phases, and the phase helpers agree', () => {
    const phased = [...recordedTags].filter((t) => !isPhaseless(t));
    expect(phased.length).toBeGreaterThan(0);
    for (const t of phased)
      expect(
        DRIVER_SCENARIOS.filter((s) => isInPhase(t, s)),
        t,
      ).toHaveLength(1);
    // Control: a tag of no phase is in none, and A's first use is in moved only.
    expect(DRIVER_SCENARIOS.filter((s) => isInPhase(DRIVER_TAGS.connect, s))).toEqual([]);
    expect(DRIVER_SCENARIOS.filter((s) => isInPhase(DRIVER_TAGS.moved.create, s))).toEqual(['moved']);
  });

  test("a logged error on a step's backend while it ran is attached to the agents' uses only", () => {
    const origin = Date.parse('2026-12-01T00:00:00Z');
    for (const report of reports)
      for (const rec of report.records) {
        const steps = structuredClone(rec.steps);
        // One error per step, on that step's backend, inside its window.
        const errors = steps
          .filter((s) => s.pid !== null && !s.error)
          // In the millisecond the step began, as the server's log writes it (truncated).
          .map((s) => ({ atMs: Math.floor(origin + s.startMs), pid: s.pid!, message: `logged during ${s.tag}` }));
        attachServerErrors(steps, errors, origin);
        // A batch names no backend: it is given every backend of the record while it ran
        // (server-log.ts), so the errors logged for the steps beside it are its own too.
        const got = steps
          .filter((s) => s.tag !== DRIVER_TAGS.batch.run && s.notices.some((n) => n.severity === SERVER_LOG))
          .map((s) => s.tag);
        // The log's milliseconds are truncated: a step another agent step follows within the same
        // millisecond cannot be told from it, and its error counts as the later step's.
        const agents = new Set(steps.filter((s) => AGENT_USES.includes(s.tag)).map((s) => s.session));
        const ms = (at: number) => Math.floor(origin + at);
        const sharesItsMs = (s: (typeof steps)[number]) =>
          steps.some(
            (u) =>
              u !== s &&
              agents.has(u.session) &&
              u.startMs >= s.startMs + s.durationMs &&
              ms(u.startMs) <= ms(s.startMs),
          );
        const want = steps
          .filter((s) => s.pid !== null && !s.error && AGENT_USES.includes(s.tag) && !sharesItsMs(s))
          .map((s) => s.tag);
        expect(got, `${rec.driver} ${rec.config}`).toEqual(want);
      }
    // Control: the holders' and observers' steps had errors on their backends too, and got none.
    const all = reports.flatMap((r) => r.records.flatMap((x) => x.steps));
    expect(all.some((s) => s.tag === DRIVER_TAGS.collision.hold && s.pid !== null)).toBe(true);
    expect(all.some((s) => AGENT_USES.includes(s.tag) && s.pid !== null && !s.error)).toBe(true);
  });
});
