/**
 * The sweep's catalog-wide look, and its fallback over `--direct`. Advisory locks and temp
 * tables of any session, and the run's schemas and regular tables, are the same catalog
 * whichever connection asks: through the pooler (sweep.ts asks there first) or directly. When
 * the pooler died mid-run that look through it fails, and without the fallback the sweep said
 * only "could not finish", leaving the run's schemas and tables on the server although
 * `--direct` could see and drop them. With the fallback it looks (and cleans) over `--direct`,
 * and says which parts of the sweep could not be verified through the pooler: what lives on
 * each pooled backend can only be seen through it.
 */
import { LOCK_NAMESPACE } from '../record/markers.js';
import { lockKeys } from './visit-sql.js';
import { numberOf } from '../record/step-reading.js';
import { cleanupBlock } from '../steering/state-scenario.js';
import { countRunTablesSql, dropTablesSql, runTablePattern } from '../steering/run-table.js';
import type { Scenario, RunContext } from '../steering/scenario.js';
import type { Session } from '../session/session.js';
import { sleep } from '../record/time.js';

/** The step tag of the catalog-wide look (through the target; with a suffix over --direct). */
export const CATALOG_TAG = 'sweep.global';

/** The counts, one column each, that the look reads. */
const COLUMNS = ['any_locks', 'any_temp_tables', 'any_schemas', 'run_tables'] as const;

function catalogSql(runId: string, checkIds: readonly string[]): string {
  return `SELECT pg_backend_pid() AS pid,
    (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND classid = ${LOCK_NAMESPACE} AND objid IN (${lockKeys(runId, checkIds).join(', ')})) AS any_locks,
    (SELECT count(*)::int FROM pg_class WHERE relpersistence = 't' AND relname LIKE 'pooltest\\_${runId}%') AS any_temp_tables,
    (SELECT count(*)::int FROM pg_namespace WHERE nspname LIKE 'pooltest\\_${runId}%') AS any_schemas,
    (${countRunTablesSql(runTablePattern(runId))}) AS run_tables`;
}

export interface CatalogLook {
  /** The session that asks. */
  session: Session;
  /** How a leftover is named: `some backend` through the target, `--direct` directly. */
  where: string;
  /** The step's tag. */
  tag: string;
  /**
   * How long locks and temp tables may take to go before they count (directly after the
   * pooler died its server connections close asynchronously, and with them their backends).
   */
  settleMs?: number;
}

/**
 * Reads the catalog-wide counts on `look.session`, adds what it finds to `leftovers` (or why it
 * could not to `doubts`), and drops the run's schemas and regular tables: unlike session
 * state they outlive every backend. Returns whether the look got an answer.
 */
export async function lookCatalogWide(
  look: CatalogLook,
  ctx: RunContext,
  checkIds: readonly string[],
  leftovers: string[],
  doubts: string[],
): Promise<boolean> {
  const sql = catalogSql(ctx.runId, checkIds);
  const deadline = Date.now() + (look.settleMs ?? 0);
  let step = await look.session.run(look.tag, sql);
  // Locks and temp tables belong to live backends: looked at again for a moment before they count.
  while (!step.error && sessionBound(step) > 0 && Date.now() < deadline) {
    await sleep(100);
    step = await look.session.run(look.tag, sql);
  }
  if (step.error) {
    doubts.push(
      `could not look catalog-wide${look.where === 'some backend' ? '' : ` (${look.where})`}: ${step.error.message}`,
    );
    return false;
  }
  for (const col of COLUMNS) {
    const n = numberOf(step, col) ?? 0;
    if (n > 0) leftovers.push(`${look.where}: ${col} = ${n}`);
  }
  // A schema's name is unique to this run and nobody else's CREATE lands in it (checks put it
  // last in search_path), so CASCADE removes only what pooltest put there.
  if ((numberOf(step, 'any_schemas') ?? 0) > 0) {
    await look.session.run(
      'sweep.cleanup',
      cleanupBlock(
        `DECLARE r record; BEGIN FOR r IN SELECT nspname AS n FROM pg_namespace WHERE nspname LIKE 'pooltest\\_${ctx.runId}%' LOOP EXECUTE format('DROP SCHEMA %I CASCADE', r.n); END LOOP; END;`,
      ),
    );
  }
  // Regular tables too, ending any session of ours still inside a transaction on one.
  if ((numberOf(step, 'run_tables') ?? 0) > 0) {
    await look.session.run(
      'sweep.cleanup',
      cleanupBlock(dropTablesSql(runTablePattern(ctx.runId), ctx.bounds.stepMs / 2)),
    );
  }
  return true;
}

function sessionBound(step: Parameters<typeof numberOf>[0]): number {
  return (numberOf(step, 'any_locks') ?? 0) + (numberOf(step, 'any_temp_tables') ?? 0);
}

/** What only the pooler can show: said when the sweep had to look over --direct instead. */
const ONLY_THROUGH_TARGET =
  "each pooled backend's own state (advisory locks it holds, temp tables, LISTEN channels, prepared statements, cursors, settings) and the application_name left on server connections";

/**
 * The fallback: when the catalog-wide look through the target got no answer (the pooler died
 * or stopped answering) and `--direct` is given, the same look over `--direct`, with its
 * cleanup. `idle` is sweep.ts's look for this run's sessions idle in a transaction, run here
 * over --direct too when the sweep did not get to it. Never throws: what it cannot do is a doubt.
 */
export async function lookDirectInstead(
  scn: Scenario,
  ctx: RunContext,
  checkIds: readonly string[],
  leftovers: string[],
  doubts: string[],
  via: string[],
  early: Promise<Session> | null,
  idle: (s: Session) => Promise<void>,
): Promise<void> {
  if (!ctx.direct || scn.steps.some((s) => s.tag === CATALOG_TAG && s.error === null)) return;
  doubts.push(
    `not verified through the target (it did not answer the sweep): ${ONLY_THROUGH_TARGET}; the catalog-wide look (locks and temp tables of any session, this run's schemas and tables) was made over --direct instead`,
  );
  try {
    const direct = await (early ?? scn.open('GD', { to: 'direct' }));
    if (!via.includes('direct')) via.push('direct');
    await lookCatalogWide(
      { session: direct, where: '--direct', tag: `${CATALOG_TAG}.direct`, settleMs: 1_000 },
      ctx,
      checkIds,
      leftovers,
      doubts,
    );
    if (!scn.steps.some((s) => s.tag === 'sweep.direct.idle')) await idle(direct);
  } catch (err) {
    doubts.push(
      `--direct: the catalog-wide look could not be made either: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
