/**
 * session/search-path-leak: does `SET search_path` stay with the client that set it? Schema
 * per tenant is a common pattern: a leaked search_path makes the next client read and write
 * another tenant's tables under the same unqualified names.
 *
 *   U:  SELECT reset_val AS default_path FROM pg_settings WHERE name = 'search_path'
 *   U:  CREATE SCHEMA <s>; CREATE TABLE <s>.<s> (v int)          -- fails without CREATE rights
 *   A:  SELECT pg_backend_pid() AS pid; SET search_path = <default>, <s>          -- backend b1
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid;                                  -- lands on b1
 *       SELECT current_setting('search_path') AS seen_path,
 *              <schema that the unqualified name <s> resolves to> AS seen_resolves
 *   A:  SELECT pg_backend_pid() AS pid; SELECT current_setting('search_path') AS mine_path,
 *              <schema that the unqualified name <s> resolves to> AS mine_resolves
 *   U:  DROP TABLE <s>.<s>; DROP SCHEMA <s>     -- always, unless CREATE was refused; again if unanswered
 *
 * U is a setup session, closed before A connects so that it holds no backend while A is
 * steered. The schema goes last in the login's own default path, so whoever inherits the value
 * still resolves every existing name and creates objects exactly as before; only the run's own
 * table name now resolves, into the run's schema: the proof that unqualified names follow the
 * leak.
 * Without CREATE rights the schema does not exist, search_path still accepts it, and the
 * setting itself is the evidence.
 * A keeps its state only if its names still resolve into the schema: a pooler that replays the
 * path may mangle it (Odyssey 1.5.1 against PostgreSQL 18, which reports search_path, sends
 * `SET search_path='"$user", public, <s>'`: one schema named after the whole list), and a
 * setting that merely contains the schema's name is then `lost` to A, not `tracked`.
 */
import { defineCheck } from '../../engine/execute/check.js';
import { stateOutcomes } from '../../engine/judging/state-outcomes.js';
import { errorText, markerOf, stepOf, valueOf } from '../../engine/record/step-reading.js';
import { judgeState } from '../../engine/judging/state-judge.js';
import { markersFor } from '../../engine/record/markers.js';
import { cleanupBlock, runStateScenario, STATE_SCENARIO } from '../../engine/steering/state-scenario.js';
import { endCreatorsSql } from '../../engine/steering/run-table.js';
import type { Scenario } from '../../engine/steering/scenario.js';
import type { StepRecord } from '../../engine/types.js';
import { LANDING_TAGS } from '../../engine/record/tags.js';
import { droppedBy, dropLoginAhead, dropOwn, refusedByServer } from '../../engine/steering/drop-own.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  /** The server's default search_path, read before anything is set. */
  path: 'setup.path',
  schema: 'setup.schema',
  drop: 'setup.cleanup',
} as const;

export const searchPathLeak = defineCheck({
  id: 'session/search-path-leak',
  title: 'SET search_path stays with the client that set it',
  severity: 'security',
  docs: [
    'https://www.pgbouncer.org/features.html (SET/RESET: never in transaction pooling)',
    'https://www.pgbouncer.org/config.html#track_extra_parameters (search_path is tracked only where the server reports it)',
  ],
  summary: "`SET search_path` to a schema of the run; do the next client's unqualified names resolve there",
  outcomes: stateOutcomes({
    leaked:
      'Schema-qualify names, or use SET LOCAL search_path inside each transaction (or ALTER ROLE ... SET search_path per tenant role): a plain SET stays on the server connection and the next client resolves names in your schema.',
    lost: 'Use SET LOCAL search_path inside each transaction, or schema-qualified names: the pooler resets session settings between transactions.',
    tracked: 'The pooler replays search_path per client; no change needed for it.',
    pinned:
      'The pooler pins clients that SET search_path, losing multiplexing: prefer SET LOCAL or schema-qualified names.',
    rejected: 'The pooler refuses SET: use SET LOCAL search_path inside a transaction, or schema-qualified names.',
  }),
  requires: ['create-schema'],
  uses: STATE_SCENARIO,
  audit: {
    statement: 'search_path set for the session',
    consequence: 'another client resolves names in this schema',
    priority: 30,
    claims: { settings: { names: ['search_path'] } },
  },
  async scenario(scn) {
    const s = markersFor(scn.ctx.runId, this.id).schemaName;
    scn.recordMarkers({ schema: s });
    // The two setup steps do not depend on each other: two setup sessions run them at once (at
    // a distance, one round trip instead of two), and both are closed before A connects. Each
    // is settled before anything is thrown: when the path's login fails (a pooler at its
    // client limit, a login past its bound) the CREATE beside it may still have committed, and
    // the drop below must see it.
    const [pathSettled, schemaSettled] = await Promise.allSettled([
      setupStep(scn, TAGS.path, `SELECT reset_val AS default_path FROM pg_settings WHERE name = 'search_path'`),
      setupStep(scn, TAGS.schema, `CREATE SCHEMA ${s}; CREATE TABLE ${s}.${s} (v int)`),
    ]);
    // A rejected setup step never sent its statement: only its login failed.
    const schema = schemaSettled.status === 'fulfilled' ? schemaSettled.value : null;
    // The drop's session logs in while A's scenario runs (drop-own.ts), where that is safe.
    const dropLogin = schema && !refusedByServer(schema) ? dropLoginAhead(scn, 'U') : null;
    try {
      if (pathSettled.status === 'rejected') throw pathSettled.reason;
      if (schemaSettled.status === 'rejected') throw schemaSettled.reason;
      const path = pathSettled.value;
      const defaultPath = valueOf(path, 'default_path');
      if (typeof defaultPath !== 'string') return;
      const inPath = `position('${s}' in current_setting('search_path')) > 0`;
      const resolves = `(SELECT n.nspname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass('${s}'))`;
      await runStateScenario(scn, {
        create: `SET search_path = ${['', '""'].includes(defaultPath.trim()) ? s : `${defaultPath}, ${s}`}`,
        observe: [`SELECT current_setting('search_path') AS seen_path, ${resolves} AS seen_resolves`],
        readback: `SELECT current_setting('search_path') AS mine_path, ${resolves} AS mine_resolves`,
        cleanup: `IF ${inPath} THEN RESET search_path; END IF;`,
      });
    } finally {
      // On every path, not only the one where A got through: the schema stays after every
      // backend is gone. Only a refusal with a SQLSTATE proves nothing was created; an
      // unanswered CREATE may still have committed (under load, queued behind another run).
      if (schema && !refusedByServer(schema)) {
        // Unanswered, the CREATE may still be running on the server: ended first, or it would
        // commit after the drop (run-table.ts).
        const endCreator = schema.error ? `${cleanupBlock(endCreatorsSql(`CREATE SCHEMA ${s};`))}; ` : '';
        await dropOwn(
          scn,
          'U',
          TAGS.drop,
          `${endCreator}DROP TABLE IF EXISTS ${s}.${s}; DROP SCHEMA IF EXISTS ${s}`,
          dropLogin,
          schema.error === null,
        );
      }
    }
  },
  judge(steps, discovery) {
    const schema = markerOf(steps, 'schema');
    const has = (step: StepRecord, column: string): boolean | null => {
      const v = valueOf(step, column);
      return typeof v === 'string' && schema !== '' ? v.includes(schema) : null;
    };
    const setup = stepOf(steps, TAGS.schema);
    const created = setup?.error === null;
    // Where A's names resolve now: null when the schema was never made or the record predates
    // the column (the setting alone is then the evidence).
    const aResolves = (readback: StepRecord | undefined): boolean | null => {
      const v = valueOf(readback, 'mine_resolves');
      return created && v !== undefined ? v === schema : null;
    };
    const j = judgeState(steps, discovery, {
      seenByOther: (take) => has(take, 'seen_path'),
      // A setting that names the schema but resolves nothing there was replayed mangled: lost to A.
      keptByA: (readback) =>
        has(readback, 'mine_path') === true ? (aResolves(readback) ?? true) : has(readback, 'mine_path'),
      show: (step) => `search_path = ${String(valueOf(step, 'seen_path') ?? valueOf(step, 'mine_path'))}`,
    });
    const observer = steps.find((t) => t.tag === LANDING_TAGS.observe && t.pid !== null && t.pid === j.facts.aBackend);
    j.facts.schemaCreated = setup ? setup.error === null : null;
    if (setup?.error) j.facts.schemaNotCreated = errorText(setup);
    // Whether the check removed its schema itself (false: the sweep finds and drops it).
    j.facts.schemaDropped = droppedBy(steps, TAGS.drop);
    j.facts.otherResolvedIntoSchema =
      observer && setup?.error === null ? valueOf(observer, 'seen_resolves') === schema : null;
    j.facts.aResolvedIntoSchema = aResolves(stepOf(steps, LANDING_TAGS.readback));
    return j;
  },
});

/** One setup statement on a session U of its own, closed once it answered. */
async function setupStep(scn: Scenario, tag: (typeof TAGS)[keyof typeof TAGS], sql: string): Promise<StepRecord> {
  const u = await scn.open('U');
  try {
    return await u.run(tag, sql);
  } finally {
    await u.close();
  }
}
