/**
 * The sweep's last look, as a client that sends no application_name: what such a client is
 * shown of this run's name on each server connection, and resetting it (see restoreNames).
 */
import { blankDiscovery } from '../discovery/discovery.js';
import { Scenario, type RunContext } from '../steering/scenario.js';
import type { Target } from '../target/target.js';
import type { StepRecord } from '../types.js';
import { runContext, type RunState } from '../context/run-state.js';
import { visitBackends } from './backend-visits.js';
import { cleanupBlock } from '../steering/state-scenario.js';
import { valueOf } from '../record/step-reading.js';
import { sparesAllowed } from '../steering/spare-session.js';
import { loginName } from '../steering/login-name.js';

/**
 * The run's own name, which the pooler may leave on its server connections. Every session of
 * the run sends `pooltest-<run>` as its startup application_name. PgBouncer tracks that
 * parameter per client and applies it to whichever server connection the client gets, with
 * a SET; but to a client that sent no name it applies nothing (an empty value is skipped), so
 * such a client - node-postgres by default - is shown whatever name the server connection
 * had last: pooltest's, long after the run. Startup parameters cannot avoid that, and SET
 * LOCAL would not name the sessions other runs and the sweep look for. (application_name is
 * the only tracked parameter node-postgres sends at startup; what checks SET is theirs to undo.)
 *
 * So the sweep ends by looking as such a client: as many nameless clients at once as the
 * pool is wide, each resetting a name of this run it finds (RESET restores the server's own
 * default, which PgBouncer never sets). The run's own name there is routine and is reported
 * as restored; a check's marker name (`pooltest-<run>-<check>`) is a leftover; a name that
 * RESET does not remove is one the pooler passes at startup, and is reported too.
 * Returns what was restored; adds what is left to `leftovers` and what it could not look at
 * to `doubts`. Where no client shares a backend (direct) there is nothing to restore, nor where
 * the run's sessions sent no name at login (pgagroal: login-name.ts): the sweep's visitors, as
 * nameless as these and naming no transaction, saw each backend's name already, and a second look would log in just after
 * the sweep ended a transaction pgagroal kept, whose slot it then still counts as taken (the
 * look was refused 'connection pool is full' and the sweep said unknown). pgpool-II gives a
 * client with other startup parameters other backends, so nameless clients find nothing of
 * this run there: its backends keep the name only for clients that send the same one.
 */
export async function restoreNames(
  ctx: RunContext,
  leftovers: string[],
  doubts: string[],
  /** From {@link namesScenario}, made earlier so that its clients are logging in already. */
  given?: Scenario,
): Promise<string[]> {
  if (ctx.discovery.mode === 'direct' || loginName(ctx) === '') {
    await given?.closeAll();
    return [];
  }
  const scn = given ?? namesScenario(ctx);
  const restored: string[] = [];
  const mine = `pooltest-${ctx.runId}`;
  const sql = [
    `SELECT current_setting('application_name') AS seen_app`,
    cleanupBlock(`IF current_setting('application_name') LIKE '${mine}%' THEN RESET application_name; END IF;`),
    `SELECT current_setting('application_name') AS after_app`,
  ];
  try {
    const waitMs = Math.min(ctx.bounds.stepMs, 4 * ctx.discovery.waitBoundMs);
    const visits = await visitBackends(scn, 'sweep.names', sql, [], {
      holdMs: 200,
      waitMs,
      deadlineMs: ctx.bounds.stepMs,
    });
    for (const step of visits.steps) {
      const seen = valueOf(step, 'seen_app');
      const after = valueOf(step, 'after_app');
      if (step.error) doubts.push(`${visitedWhere(step)}: could not look at application_name: ${step.error.message}`);
      if (typeof seen !== 'string' || !seen.startsWith(mine)) continue;
      if (typeof after === 'string' && after.startsWith(mine))
        leftovers.push(
          `backend ${step.pid}: application_name = ${after} even after RESET (the pooler passes it at startup)`,
        );
      else if (seen === mine) restored.push(`backend ${step.pid}: application_name ${seen} reset`);
      else
        leftovers.push(
          `backend ${step.pid}: application_name = ${seen} (a check's SET, shown to clients that send no name)`,
        );
    }
  } catch (err) {
    doubts.push(
      `could not look at application_name as a client that sends none: ${err instanceof Error ? err.message : String(err)}`,
    );
  } finally {
    await scn.closeAll();
  }
  return restored;
}

/**
 * Where a visit looked, for a doubt: its backend, or, when it failed before it could read one
 * (a login refused, a statement that errored first), the client that tried. `backend ?` told
 * a reader nothing (issue 40).
 */
export function visitedWhere(step: Pick<StepRecord, 'pid' | 'session'>): string {
  return step.pid !== null ? `backend ${step.pid}` : `client ${step.session} (no backend reached)`;
}

/**
 * The nameless clients' scenario. Where an idle login holds nothing (as for spares:
 * steering/spare-session.ts), one login per backend starts at once, so that a sweep that makes
 * this at its start finds its last visitors connected: at a distance a login costs 3 round trips.
 */
export function namesScenario(ctx: RunContext): Scenario {
  const scn = new Scenario(ctx);
  scn.applicationName = '';
  // Its visitors read the name a backend shows: they must not set one themselves.
  scn.namesTransactions = false;
  if (ctx.discovery.mode !== 'direct' && loginName(ctx) !== '' && sparesAllowed(ctx))
    scn.loginAhead(ctx.discovery.poolSize ?? 2);
  return scn;
}

/**
 * After a discovery that ended early (interrupted, or refused the run): its sessions logged in
 * with the run's name, so the pooler may show it to nameless clients, as after any run. Not
 * knowing the pool yet, the visit is as wide as the pool bound and treats the target as a
 * pooler (a direct server's backends ended with their sessions: nothing is found there).
 * Returns a sentence for the error message: what was reset, or why it could not look.
 */
export async function restoreNamesAfterDiscovery(
  target: Target,
  opts: { runId: string; bounds: RunContext['bounds']; poolBound: number; state?: RunState },
): Promise<string> {
  const discovery = { ...blankDiscovery(opts.poolBound, 250), mode: 'transaction' as const };
  const ctx = runContext({ target, direct: null, discovery, runId: opts.runId, bounds: opts.bounds }, opts.state);
  const leftovers: string[] = [];
  const doubts: string[] = [];
  const restored = await restoreNames(ctx, leftovers, doubts);
  // Visitors beyond the pool's real width wait for a backend until their bound: that is the
  // pool being narrower than the bound, not a backend that could not be looked at. (Such a
  // visit is named after its client since issue 40: visitedWhere.)
  const queued = doubts.filter((d) =>
    /^client \S+ \(no backend reached\): could not look at application_name: no answer within/.test(d),
  );
  const said = [
    ...(restored.length > 0 ? [`this run's application_name reset on ${restored.length} server connection(s)`] : []),
    ...leftovers,
    ...doubts.filter((d) => !queued.includes(d)),
    ...(queued.length >= opts.poolBound ? ["no visitor got a backend to look for this run's application_name"] : []),
  ];
  return said.length > 0 ? said.join('; ') : "no server connection kept this run's application_name";
}
