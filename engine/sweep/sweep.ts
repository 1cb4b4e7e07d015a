/**
 * The sweep: after the checks, prove the run left nothing behind. Holders take as many
 * backends at once as the pool has (so every backend is visited, not just the one a casual
 * client would get), and on each one list what carries this run's markers: advisory locks,
 * temp tables and sequences, LISTEN channels, prepared statements, cursors, GUC values, a
 * search_path or a role switch; and, catalog-wide, schemas and regular tables. Whatever is
 * found is reported (a dirty sweep is pooltest's own failure) and removed on the spot.
 *
 * "Every backend" is checked, not assumed: the run hands over every pid its steps saw, and a
 * backend still alive that no visit reached gets another round (other clients may have held
 * it), then is reported as unvisited. pg_stat_activity is searched, through the target and
 * with `--direct` also directly, for a session of this run (by its application_name) left
 * idle in a transaction; with `--direct` those are ended (sweep-idle.ts).
 */
import { Scenario, type RunContext } from '../steering/scenario.js';
import { visitBackends, type Visits } from './backend-visits.js';
import { cleanupBlock } from '../steering/state-scenario.js';
import { cleanupSql, inspectionSql, leftoversOn } from './visit-sql.js';
import { describeViolationStep, protocolViolationIn } from '../judging/protocol.js';
import { CATALOG_TAG, lookCatalogWide, lookDirectInstead } from './catalog.js';
import { numberOf } from '../record/step-reading.js';
import { namesScenario, restoreNames } from './names.js';
import type { Session } from '../session/session.js';
import { sparesAllowed } from '../steering/spare-session.js';
import type { SweepResult } from '../types.js';
import { IDLE_LINE, idleInTransaction, lastIdleLook, type SweepLists } from './idle.js';

/**
 * Visits every backend the pool has (and every backend in `touched`, the pids the run's steps
 * reported, that is still alive), reports this run's leftovers and removes them.
 */
export async function sweep(
  ctx: RunContext,
  checkIds: readonly string[],
  touched: readonly number[] = [],
  prepared: PreparedSweep | null = null,
): Promise<SweepResult> {
  const scn = new Scenario(ctx);
  // The visitors and the catalog-wide look take logins made ahead (prepareSweep), where an
  // idle login holds nothing (steering/spare-session.ts): at a distance a login is 3 round trips.
  scn.useSpares();
  // Its visits read each backend's application_name as a client that sends none at login is
  // shown it: a SET LOCAL naming their transaction (login-name.ts) would hide a check's marker.
  // Each visit is one message that commits, so no transaction of theirs can outlive them.
  scn.namesTransactions = false;
  // The nameless clients of the last look (sweep/names.ts) log in now at the latest.
  const names = prepared?.names ?? namesScenario(ctx);
  // Two kinds of news, kept apart: what was found (dirty, pooltest's own failure) and what
  // could not be looked at (unknown: an unreachable pooler is no proof of a mess, nor of none).
  const leftovers: string[] = [];
  const doubts: string[] = [];
  // This run's sessions the pooler kept idle in a transaction, ended through --direct.
  const ended: string[] = [];
  let visited: number[] = [];
  const via: string[] = ['target'];
  // The catalog-wide look's sessions log in while the visits run: over --direct always (it uses
  // no pooled backend), through the target where an idle login holds nothing (as for spares).
  const early: Logins = {
    target: sparesAllowed(ctx) ? scn.open('G') : null,
    direct: ctx.direct ? scn.open('GD', { to: 'direct' }) : null,
  };
  for (const login of [early.target, early.direct]) login?.catch(() => undefined);
  // The last look for idle transactions, after the nameless clients' (see lastIdleLook).
  const last = ctx.direct ? new Scenario(ctx) : null;
  const lastLogin = last?.open('GL', { to: 'direct' });
  lastLogin?.catch(() => undefined);
  try {
    // Patient: once per run, and other clients may be keeping every backend busy for a while.
    const waitMs = Math.min(ctx.bounds.stepMs, 4 * ctx.discovery.waitBoundMs);
    const visits = await visitBackends(scn, 'sweep.visit', visitStatements(ctx.runId, checkIds), touched, {
      holdMs: 200,
      waitMs,
      deadlineMs: 3 * ctx.bounds.stepMs,
      asker: early.target,
    });
    visited = visits.visited;
    const found = findings(visits);
    leftovers.push(...found.left);
    doubts.push(
      ...found.doubts,
      ...found.unreached.map(
        (pid) =>
          `backend ${pid}: used by this run and still alive, but no visit reached it (other clients kept it busy): not proven clean`,
      ),
    );
    if (visited.length === 0) doubts.push(`the sweep could not reach any backend${firstConnectError(scn)}`);
    await sweepGlobal(scn, ctx, checkIds, { leftovers, doubts, ended }, via, early);
  } catch (err) {
    doubts.push(`the sweep could not finish: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    // The pooler did not answer the catalog-wide look: over --direct instead (sweep/catalog.ts).
    await lookDirectInstead(scn, ctx, checkIds, leftovers, doubts, via, early.direct, (s) =>
      idleInTransaction(scn, s, 'direct', ctx.runId, { leftovers, doubts, ended }),
    );
  } finally {
    // A login still under way would be left open after closeAll.
    await Promise.allSettled([early.target, early.direct]);
    await scn.closeAll();
  }
  // A malformed message from the target: what it said cannot be trusted, so nothing is proven.
  const violation = protocolViolationIn(scn.steps);
  if (violation)
    doubts.push(
      `not proven clean: the target broke the PostgreSQL wire protocol during the sweep (${describeViolationStep(violation)})`,
    );
  // Last, once no session of this run will touch the pool again.
  const restored = await restoreNames(ctx, leftovers, doubts, names);
  if (last && lastLogin) await lastIdleLook(last, lastLogin, ctx.runId, { leftovers, doubts, ended });
  const state = leftovers.length > 0 ? 'dirty' : doubts.length > 0 ? 'unknown' : 'clean';
  return {
    clean: state === 'clean',
    state,
    ...(doubts.length > 0 ? { reason: doubts.join('; ') } : {}),
    backendsVisited: visited,
    leftovers,
    via,
    ...(restored.length > 0 ? { restored } : {}),
    ...(ended.length > 0 ? { ended } : {}),
  };
}

/** Logins the sweep will take, started before it (see prepareSweep). */
export interface PreparedSweep {
  names: Scenario;
}

/**
 * Starts the sweep's logins before the sweep: its visitors' (the run's spares in this process)
 * and the nameless clients' of its last look. The runner calls it once the last check has
 * reported, so that they log in while Vitest closes. Where an idle login is not safe
 * (sparesAllowed) nothing starts and the sweep logs in as it goes.
 */
export function prepareSweep(ctx: RunContext): PreparedSweep {
  new Scenario(ctx).useSpares();
  return { names: namesScenario(ctx) };
}

/** Why no visitor got in, when a connection failed (a pooler that is down says so here). */
function firstConnectError(scn: Scenario): string {
  const failed = scn.steps.find((s) => s.tag === 'sweep.visit.connect' && s.error !== null);
  return failed?.error ? `: ${failed.error.message}` : '';
}

/**
 * The sweep's visits alone, for one check right after it ran (the engine calls it, interrupted
 * or not): whatever the check's own cleanup missed - a landing that never reached A's old
 * backend under other traffic, a scenario cut short - is removed at once rather than at the
 * end of the run, and named in the check's result. The final sweep still looks again.
 */
export async function tidy(
  ctx: RunContext,
  checkIds: readonly string[],
  touched: readonly number[],
  given?: Scenario,
): Promise<Findings> {
  // `given`: a scenario whose visitors are already logging in (engine/execute/execute.ts).
  const scn = given ?? new Scenario(ctx);
  try {
    // Short holds and waits: this runs after every check. A holder let go too early only
    // costs another round (every touched backend must be reached); what stays unreached is
    // left to the final sweep, which waits longer.
    const d = ctx.discovery;
    const holdMs = Math.min(200, Math.max(50, Math.round(20 * d.rttMs + 4 * d.connectLatencyMs)));
    const waitMs = Math.min(ctx.bounds.stepMs, 2 * d.waitBoundMs);
    const found = findings(
      await visitBackends(scn, 'tidy.visit', visitStatements(ctx.runId, checkIds), touched, {
        holdMs,
        waitMs,
        deadlineMs: 4 * waitMs,
        // No COMMIT round trip after each visit (backend-visits.ts): this runs after every check.
        oneMessage: true,
      }),
    );
    return { left: [...found.left, ...found.doubts], unreached: found.unreached };
  } catch (err) {
    return { left: [`could not visit the pool: ${err instanceof Error ? err.message : String(err)}`], unreached: [] };
  } finally {
    await scn.closeAll();
  }
}

/**
 * On each visited backend: count what carries the run's markers, then remove it (visit-sql.ts).
 * For one check these fit one Query message that may wait in a pooler's queue, so the tidy's
 * visitor holds with one message (QUEUED_MESSAGE_MAX_BYTES in steering/holders.ts; a queued
 * visitor whose message filled PgBouncer's buffer and gave up once cost the pool a server).
 * For a whole run they are larger: the sweep's takes send them once they hold their backend.
 */
export function visitStatements(runId: string, checkIds: readonly string[]): string[] {
  return [inspectionSql(runId, checkIds), cleanupBlock(cleanupSql(runId, checkIds))];
}

/** What visits found (and removed) on the backends they reached, and which touched backends they could not reach. */
export interface Findings {
  left: string[];
  unreached: number[];
  /** The backends the check's own last steps tidied, where they stood for the visits (steering/inline-tidy.ts). */
  inlineOn?: number[];
  /** Why the check's last steps, though they carried the tidy-up, did not stand for the visits. */
  inlineMissed?: string;
}

function findings(visits: Visits): Findings & { doubts: string[] } {
  const left: string[] = [];
  const doubts: string[] = [];
  for (const step of visits.steps) {
    if (step.pid === null) continue;
    left.push(...leftoversOn(step.pid, (col) => numberOf(step, col)));
    if (step.error) doubts.push(`backend ${step.pid}: could not inspect: ${step.error.message}`);
  }
  return { left, doubts, unreached: visits.unvisited };
}

/** Sessions for the catalog-wide look, logging in ahead (null: log in when needed). */
interface Logins {
  target: Promise<Session> | null;
  direct: Promise<Session> | null;
}

/** Catalog-wide views: locks and temp tables of any session, and (direct) idle transactions. */
async function sweepGlobal(
  scn: Scenario,
  ctx: RunContext,
  checkIds: readonly string[],
  lists: SweepLists,
  via: string[],
  early: Logins,
): Promise<void> {
  const { leftovers, doubts } = lists;
  const g = await (early.target ?? scn.open('G'));
  await lookCatalogWide({ session: g, where: 'some backend', tag: CATALOG_TAG }, ctx, checkIds, leftovers, doubts);
  // The two looks for idle transactions, through the target and directly, ask the same
  // question of different sessions: together, one round trip instead of two.
  const direct = ctx.direct ? (early.direct ?? scn.open('GD', { to: 'direct' })) : null;
  if (direct) via.push('direct');
  // Each look writes its own lists, added in a fixed order (target first) once both ended.
  const looks = [g, direct].map((session, i) => {
    const found: SweepLists = { leftovers: [], doubts: [], ended: [] };
    const where = i === 0 ? 'target' : 'direct';
    const done = session
      ? Promise.resolve(session).then((s) => idleInTransaction(scn, s, where, ctx.runId, found))
      : Promise.resolve();
    return { found, done };
  });
  const settled = await Promise.allSettled(looks.map((l) => l.done));
  // The direct look ended what the target's saw (the same server): the target's count of
  // them is no leftover then.
  const endedDirectly = looks[1]?.found.ended.length ?? 0;
  for (const { found } of looks) {
    leftovers.push(...found.leftovers.filter((l) => endedDirectly === 0 || !IDLE_LINE.test(l)));
    doubts.push(...found.doubts);
    lists.ended.push(...found.ended);
  }
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
