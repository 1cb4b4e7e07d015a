/**
 * Nothing a check creates in the catalog outlives it, whatever happens to any one of its logins
 * or statements, while another pooltest run works the same pool. A quiet fresh-clone CI run
 * with two runs on one PgBouncer pool of 2 found one run's schema and table of
 * session/search-path-leak at its sweep (any_schemas = 1, run_tables = 1), after two earlier
 * fixes had each closed one path out (fa4aaf5, 0a2c7fa): this test walks all of them.
 *
 * The checks that create what outlives every backend (a regular table, a schema:
 * transactions/abandoned and session/search-path-leak) run in this process through a fault proxy in
 * front of a transaction-mode PgBouncer, while a second pooltest run (the built CLI, straight to
 * the pooler) works the same pool over and over. Each check runs once unfaulted, recording every
 * login and statement it sent; then once per event and fault, with that one login or statement held
 * before the pooler (queued: its client gives up and it never arrives), stalled (its connection
 * black-holed right after it reached the pooler) or cut (its connection dropped right after), or on
 * request refused in its place (creator-faults.ts). After each run, once a stalled CREATE would
 * have committed, the server must hold no schema and no table of that run, read as the superuser.
 * What a faulted run left is removed before the next, so each event is judged alone.
 *
 * Every other check's objects die with their backend, so none is iterated here (read from every
 * check file in suites/): temporary tables and sequences (temp/temp-table, sequences/lastval,
 * session/reset-on-disconnect), named prepared statements (prepared/sql-prepare,
 * prepared/protocol-named, prepared/close, pipeline/prepared, pipeline/disconnect), LISTEN
 * (notify/listen), session advisory locks (locks/advisory-session), WITH HOLD cursors
 * (cursors/with-hold) and session settings stay on a pooled server connection until the tidy-up's
 * visits undo them, and the sweep looks for them there (temporary tables and advisory locks also
 * catalog-wide). Temporary tables ON COMMIT DROP (temp/on-commit-drop, copy/in-out's three) go with
 * their transaction, committed or rolled back: they outlive it only inside a transaction a pooler
 * keeps open after its client left (departed-transaction.test.ts). auth/stale-password's ALTER ROLE
 * ... PASSWORD outlives everything, but runs only against pooltest's own fixtures, never a pool
 * another run shares.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { discover } from '../../engine/discovery/discovery.js';
import { executeCheck } from '../../engine/execute/execute.js';
import { runContext } from '../../engine/context/run-state.js';
import { closeKeptSessions } from '../../engine/steering/kept-session.js';
import { closeSpares } from '../../engine/steering/spare-session.js';
import type { RunContext } from '../../engine/steering/scenario.js';
import { resolveTarget } from '../../engine/target/target.js';
import type { CheckDefinition } from '../../engine/execute/check.js';
import type { Discovery } from '../../engine/types.js';
import { abandoned } from '../../suites/transactions/abandoned.check.js';
import { searchPathLeak } from '../../suites/session/search-path-leak.check.js';
import { withSuperuser } from '../safety/trace-inspection.js';
import { runCli } from '../support/cli.js';
import { armFault, describeEvent, recordEvents, type EventFault, type ProxyEvent } from './creator-faults.js';
import { startProxiedBouncer, type ProxiedBouncer } from './proxied-bouncer.js';

const BOUNDS = { connectMs: 2_000, stepMs: 2_000 };
/** A black hole outlasts every bound, so the stalled step is given up on. */
const STALL_MS = 3 * BOUNDS.stepMs;
/** After a run, how long a CREATE given up on may still take to commit. */
const SETTLE_MS = 1_500;
/**
 * The faults each event gets. POOLTEST_FAULT_KINDS (comma-separated) picks others: `refuse`
 * (creator-faults.ts) is left out by default for time (34 more runs, 147 s on the loaded
 * 2-core machine beside the default's 476 s; nothing left in any).
 */
const FAULTS = (process.env.POOLTEST_FAULT_KINDS?.split(',') ?? ['hold', 'stall', 'cut']) as EventFault[];
for (const f of FAULTS)
  if (!['hold', 'stall', 'cut', 'refuse'].includes(f)) throw new Error(`POOLTEST_FAULT_KINDS: unknown fault '${f}'`);

let stack: ProxiedBouncer;
let discovery: Discovery;
let other: { stop(): Promise<string[]> };

beforeAll(async () => {
  stack = await startProxiedBouncer();
  discovery = await discover(resolveTarget({ target: stack.bouncer.url() }, {}), {
    bounds: BOUNDS,
    poolBound: 8,
    runId: 'c0ffee01',
  });
  other = anotherRun(stack);
}, 120_000);

afterAll(async () => {
  const runs = (await other?.stop()) ?? [];
  console.log(`the other run, ${runs.length} time(s) on the same pool:\n  ${runs.join('\n  ')}`);
  await stack?.stop();
});

/** A second pooltest run, again and again, on the same pool (not through the proxy). */
function anotherRun(s: ProxiedBouncer): { stop(): Promise<string[]> } {
  let stopping = false;
  const runs: string[] = [];
  let child: { kill(signal: NodeJS.Signals): boolean } | null = null;
  const loop = (async () => {
    while (!stopping) {
      const run = await runCli(['--target', s.bouncer.url(), '--direct', s.pg.url(), '--no-store'], {
        json: true,
        timeoutMs: 300_000,
        onSpawn: (c) => (child = c),
      });
      const checks = run.report?.checks ?? [];
      const concluded = checks.filter((c) => c.outcome !== null).length;
      runs.push(
        `exit ${run.code}, ${run.ms} ms, ${concluded} of ${checks.length} concluded, sweep ${run.report?.sweep?.state}`,
      );
    }
  })();
  return {
    async stop() {
      stopping = true;
      // SIGINT: it stops as a user's Ctrl-C stops it, and sweeps what it made.
      child?.kill('SIGINT');
      await loop;
      return runs;
    },
  };
}

/** A context for one run of a check through the proxy, under a fresh run id. */
function contextFor(runId: string): RunContext {
  const target = resolveTarget({ target: stack.url() }, {});
  // With --direct, as the load test's runs have it.
  const direct = resolveTarget({ target: stack.pg.url() }, {});
  return runContext({ target, direct, discovery, runId, bounds: BOUNDS });
}

/** The run's schemas and tables on the server, removed once read (so the next run starts clean). */
async function leftOf(runId: string): Promise<string[]> {
  return withSuperuser(stack.pg, async (c) => {
    const like = `pooltest\\_${runId}%`;
    const rows = await c.query<{ kind: string; name: string; schema: string }>(
      `SELECT 'schema' AS kind, nspname::text AS name, nspname::text AS schema FROM pg_namespace WHERE nspname LIKE $1
       UNION ALL SELECT 'table', relname::text, n.nspname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE relkind = 'r' AND relpersistence = 'p' AND relname LIKE $1`,
      [like],
    );
    for (const r of rows.rows)
      if (r.kind === 'schema') await c.query(`DROP SCHEMA IF EXISTS "${r.schema}" CASCADE`);
      else await c.query(`DROP TABLE IF EXISTS "${r.schema}"."${r.name}"`);
    return rows.rows.map((r) => `${r.kind} ${r.schema === r.name ? r.name : `${r.schema}.${r.name}`}`);
  });
}

/** One run of `check`; `arm` is called with the run id before it starts. */
async function once(check: CheckDefinition, arm: (runId: string) => void) {
  const runId = randomBytes(4).toString('hex');
  const ctx = contextFor(runId);
  arm(runId);
  const started = performance.now();
  try {
    const result = await executeCheck(check, ctx, null);
    return { runId, result, ms: Math.round(performance.now() - started) };
  } finally {
    stack.proxy.afterChunk(
      'toServer',
      () => false,
      () => undefined,
    );
    await Promise.all([closeSpares(ctx.state), closeKeptSessions('all', ctx.state)]);
  }
}

/** Events up to the check's last drop: what comes after it cannot leave the objects behind. */
function untilDrop(events: ProxyEvent[]): ProxyEvent[] {
  const last = events.map((e) => /DROP (SCHEMA|TABLE)/.test(e.text)).lastIndexOf(true);
  return last < 0 ? events : events.slice(0, last + 1);
}

describe('every login and statement of a creating check, stalled or cut, with another run on the pool: nothing left', () => {
  test.for([abandoned, searchPathLeak])('$id', { timeout: 900_000 }, async (check) => {
    let events: ProxyEvent[] = [];
    const base = await once(check, (runId) => (events = recordEvents(stack.proxy, runId)));
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const baseLeft = await leftOf(base.runId);
    const faulted = untilDrop(events);
    // The unfaulted run reached its CREATE and its drop (otherwise the events prove little).
    expect(faulted.map((e) => e.text).join('\n')).toMatch(/CREATE (SCHEMA|TABLE)/);
    expect(faulted.at(-1)?.text).toMatch(/DROP (SCHEMA|TABLE)/);
    const lines: string[] = [
      `unfaulted: ${base.ms} ms, ${events.length} events, left: ${baseLeft.join(', ') || 'nothing'}`,
    ];
    const left: string[] = baseLeft.map((l) => `unfaulted: ${l}`);
    // POOLTEST_FAULT_ONLY (a regular expression): only the cases whose name matches, to look into one.
    const only = process.env.POOLTEST_FAULT_ONLY ? new RegExp(process.env.POOLTEST_FAULT_ONLY) : null;
    for (const event of faulted) {
      for (const fault of FAULTS) {
        if (only && !only.test(`${fault} ${describeEvent(event)}`)) continue;
        let armed: ReturnType<typeof armFault> | null = null;
        const r = await once(check, (runId) => (armed = armFault(stack.proxy, runId, event, fault, STALL_MS)));
        armed!.stop();
        const fired = armed!.fired;
        await new Promise((res) => setTimeout(res, SETTLE_MS));
        const found = await leftOf(r.runId);
        const name = `${fault} ${describeEvent(event)}`;
        lines.push(`  ${name}: ${r.ms} ms${fired() ? '' : ' (never fired)'}, left: ${found.join(', ') || 'nothing'}`);
        // What the run did, for a case that left something.
        if (found.length > 0)
          for (const st of r.result.steps)
            lines.push(
              `      ${st.startMs}+${st.durationMs} ${st.session} ${st.tag} ${st.error ? `${st.error.code ?? ''} ${st.error.message}` : 'ok'}: ${st.sql.slice(0, 60)}`,
            );
        left.push(...found.map((f) => `${name}: ${f}`));
      }
    }
    console.log(`${check.id}\n${lines.join('\n')}`);
    expect(left).toEqual([]);
  });
});
