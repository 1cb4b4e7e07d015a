/**
 * Discovery: what kind of target is this, before any check runs? Everything is learned by
 * observation through ordinary client connections; nothing needs setting up on the pooler.
 *
 *  1. Reach it (TCP, then a real login), read the server version, time a few round trips.
 *  2. Ask who it is: `SHOW pool_version` answers through pgpool-II; a protocol 2.0 startup, no
 *     login, names pgagroal (discovery/fingerprint.ts); PgBouncer's admin console (database
 *     `pgbouncer`) answers `SHOW VERSION` when the user is an admin or stats user, and Odyssey
 *     refuses that login in words of its own.
 *  3. Does it accept a transaction block? Statement pooling refuses `BEGIN`.
 *  4. With client D connected and idle on backend d, holders take backends one by one until
 *     the pooler queues one (the pool is full) or the bound is reached. A holder landing on d
 *     means backends are shared between connected clients: transaction pooling.
 *  5. With d held, D's next transaction shows whether a client keeps its backend.
 *  6. A new client after D leaves shows whether backends are reused at all (direct Postgres
 *     starts a new process for every connection).
 * Steps 4 to 6 are the pool count (pool-count.ts), which the recount after a destructive check
 * repeats with what this discovery learned (engine/discovery/pool-watch.ts).
 */
import { PooltestError } from '../record/errors.js';
import { probeTcp } from '../session/connect.js';
import { Session } from '../session/session.js';
import { Scenario } from '../steering/scenario.js';
import { classify, countPool, modeDecided, readReuse } from './pool-count.js';
import { findStaleBackends, staleNote } from '../steering/stale-backends.js';
import { openWhenAdmitted } from '../steering/admitted.js';
import { isCapacityRefusal } from '../record/capacity-refusal.js';
import { PROTOCOL_VIOLATION, violationError } from '../judging/protocol.js';
import { askPgBouncer, askPgpool, OptionalProbes } from './probes.js';
import { askStartupFingerprint } from './fingerprint.js';
import { isForeignProtocolError } from '../wire/foreign-protocol.js';
import { probeClientRoom } from './client-room.js';
import { recount } from './recount.js';
import type { DiscoveryOptions } from './options.js';

import { probeTransactionBlocks, secondLogin } from './transaction-block.js';
import { sleep } from '../record/time.js';
import { describeTarget, type Target } from '../target/target.js';
import type { Discovery } from '../types.js';
import { runContext } from '../context/run-state.js';

/** PgBouncer's answer while server_login_retry runs after a failed server login. */
const LOGIN_RETRY = /server login has been failing, try again later/;
const PGAGROAL_NO_ADMIN_LOGIN =
  "PgBouncer's admin console was not asked: pgagroal 1.6.0 makes room for a login to a database it has no pool for (database pgbouncer) by closing one of its idle pooled server connections";

/** What discovery knows before its first login: nothing but the bounds it was given. */
export function blankDiscovery(poolBound: number, waitBoundMs: number): Discovery {
  return {
    mode: 'direct',
    poolSize: null,
    poolBound,
    sharedAcrossClients: false,
    clientKeepsBackend: true,
    reuseAfterDisconnect: false,
    transactionBlocks: 'allowed',
    holderStrategy: 'transaction',
    serverVersion: '',
    serverVersionNum: 0,
    pooler: null,
    rttMs: 1,
    connectLatencyMs: 0,
    waitBoundMs,
    notes: [],
    steps: [],
  };
}

export async function discover(target: Target, opts: DiscoveryOptions): Promise<Discovery> {
  await probeTcp(target, opts.bounds.connectMs);
  opts.onReachable?.();
  const d = blankDiscovery(opts.poolBound, opts.waitMs ?? 250);
  const scn = new Scenario(
    runContext(
      { target, direct: null, discovery: d, runId: opts.runId ?? 'discovery', bounds: opts.bounds },
      opts.state,
    ),
    opts.signal,
  );
  // A recount (engine/discovery/pool-watch.ts) takes the run's logins made ahead of need, where the
  // earlier discovery showed that an idle login holds nothing: D and the holders are then
  // connected already, which at a distance saves a login's round trips each.
  if (opts.known) scn.useSpares(opts.known);
  // Violations on the optional probes' connections become findings; any other one stops discovery.
  const probes = new OptionalProbes(scn, d);
  // No login, no pool: it runs beside D's login and names pgagroal before the admin console is asked.
  const fingerprint = opts.known ? null : askStartupFingerprint(target, opts.bounds.connectMs);
  try {
    const t0 = performance.now();
    let first = await openFirst(scn, target, opts);
    d.connectLatencyMs = Math.round(performance.now() - t0);
    const serverSql =
      "SELECT pg_backend_pid() AS pid, current_setting('server_version') AS version, current_setting('server_version_num')::int AS num";
    let info = await first.run('discovery.server', serverSql);
    // Refused at capacity before any backend answered (other clients hold the whole pool, and
    // the pooler refuses rather than queues): try again within the connect bound, then say so.
    // A recount also waits out PgBouncer's server_login_retry: after a failed server login it
    // answers "try again later" for that long (1-15 s), even with a working server connection
    // in the pool. A recount made just after a destructive check broke one lands in that window
    // (test/faults/shrinking-pool.test.ts), and the pool it means to count is the one after it.
    const transient = (e: typeof info.error): boolean =>
      isCapacityRefusal(e) || (opts.known !== undefined && e !== null && LOGIN_RETRY.test(e.message));
    for (const deadline = Date.now() + opts.bounds.connectMs; transient(info.error) && Date.now() < deadline;) {
      await first.close();
      await sleep(100);
      first = await openFirst(scn, target, opts);
      info = await first.run('discovery.server', serverSql);
    }
    if (isCapacityRefusal(info.error))
      throw new PooltestError(
        'TARGET_FULL',
        `${describeTarget(target)} refused every attempt at capacity for ${opts.bounds.connectMs} ms (${info.error?.code ?? ''} ${info.error?.message}): other clients hold its whole pool`,
      );
    if (info.error || info.pid === null)
      throw new PooltestError(
        'NOT_POSTGRES',
        `${describeTarget(target)} accepted a login but could not answer a query: ${info.error?.message ?? 'no pid'}`,
      );
    await opts.beforeTimed?.();
    d.serverVersion = String(info.results[0]?.[0]?.version ?? '');
    d.serverVersionNum = Number(info.results[0]?.[0]?.num ?? 0);
    if (opts.known) await recount(scn, d, first, opts, opts.known, info.pid);
    else {
      // T, the second client, logs in while D times its round trips: a login is several.
      const second = secondLogin(scn);
      // The round trip is D's second query, before any optional probe: a malformed answer to it
      // ends discovery (PROTOCOL_VIOLATION), where one to an optional probe is only a finding
      // (test/wire/cli-faults.test.ts holds the order; moving the probes ahead broke it twice).
      d.rttMs = await measureRtt(first);
      const pgpool = await askPgpool(first, probes);
      // D's connection died with the malformed answer: the count needs an idle client D.
      if (pgpool.dead) first = await openFirst(scn, target, opts);
      const named = await fingerprint;
      if (named?.finding) (d.wireFindings ??= []).push(named.finding);
      // pgagroal makes room for a login to a database it has no pool for (the admin console's
      // `pgbouncer`) by closing an idle pooled server connection: that probe would change the
      // pool about to be counted, so a pooler the fingerprint named is not asked.
      if (named?.pooler?.name === 'pgagroal') d.notes.push(PGAGROAL_NO_ADMIN_LOGIN);
      // PgBouncer's admin console is a database of its own that uses none of the pool's
      // backends: it is asked while T probes transaction blocks (a login's round trips off the
      // critical path at a distance). askPgBouncer records its failures and never rejects.
      const bouncerAsked = pgpool.pooler || named?.pooler ? Promise.resolve(null) : askPgBouncer(scn, target, probes);
      // D is idle while T probes transaction blocks: it looks for dead runs' leftovers meanwhile
      // (not when T was not admitted: the probe then runs on D itself).
      const d0 = first;
      const staleAlongside = second.session.then(
        (t) => (t === 'refused' || t === null ? null : findStaleBackends(d0, scn.ctx.runId, opts.bounds.stepMs)),
        () => null,
      );
      const [bouncer, probed, staleSeen] = await Promise.all([
        bouncerAsked,
        probeTransactionBlocks(d, first, second),
        staleAlongside,
      ]);
      const warmConnectMs = probed.connectMs;
      d.pooler = pgpool.pooler ?? named?.pooler ?? bouncer;
      // The first login of a fresh process also pays for loading pg and warming its crypto (SCRAM):
      // T's login, the second, is what later logins cost. The faster of the two sets the bounds.
      if (warmConnectMs !== null) {
        d.connectLatencyMs = Math.min(d.connectLatencyMs, warmConnectMs);
        d.waitBoundMs = opts.waitMs ?? clamp(Math.max(250, 10 * d.rttMs, 4 * d.connectLatencyMs), 250, 3000);
      }
      // Dead runs' leftovers: reported once here, and never counted as the pool's (busyElsewhere).
      const stale = staleNote(staleSeen ?? (await findStaleBackends(first, scn.ctx.runId, opts.bounds.stepMs)));
      if (stale) d.notes.push(stale);
      // Only a violation in the stale probe's own step: one earlier on D is discovery's to stop on.
      if (scn.steps.filter((s) => s.tag === 'discovery.stale').at(-1)?.error?.code === PROTOCOL_VIOLATION) {
        probes.record(
          {
            probe: 'discovery.stale',
            session: first.label,
            connection: "discovery's first client, asking pg_stat_activity for a dead run's leftovers",
          },
          'no stale backends were looked for; discovery logged D in again',
          first.violation,
        );
        first = await openFirst(scn, target, opts);
      }
      // T, connected and idle, is the count's first holder: at a distance a login is 3 round trips.
      const seen = await countPool(scn, d, first, { ...opts, firstHolder: probed.holder }, probes);
      if (modeDecided(d)) {
        // Connected clients already share backends: the reuse probe cannot change the mode,
        // so the burst of idle logins goes alongside it.
        classify(d);
        await Promise.all([readReuse(scn, d, seen, opts), probeClientRoom(scn, d, probes)]);
      } else {
        await readReuse(scn, d, seen, opts);
        classify(d);
        await probeClientRoom(scn, d, probes);
      }
    }
  } catch (err) {
    // A malformed message explains whatever discovery made of it (NOT_POSTGRES, STEERING_FAILED...).
    const v = probes.unaccounted(scn.steps);
    // A target that is no PostgreSQL server at all is said plainly (wire/foreign-protocol.ts).
    throw v && !isForeignProtocolError(err) ? violationError(v, 'during discovery, before any check could run') : err;
  } finally {
    await scn.closeAll();
    d.steps = scn.steps;
  }
  const violation = probes.unaccounted(d.steps);
  if (violation) throw violationError(violation, 'during discovery, before any check could run');
  if (opts.failOnLargePool !== false && d.sharedAcrossClients && d.poolSize === null) {
    const fix = poolTooLargeAdvice(opts.poolBound);
    throw new PooltestError(
      'POOL_TOO_LARGE',
      `${describeTarget(target)} shares backends between clients but gave more than ${opts.poolBound} at once: pooltest cannot steer a pool that large. ${fix}`,
      { bound: opts.poolBound },
    );
  }
  return d;
}

/**
 * What to do when the pool is larger than --max-pool. A pool of 2 is what steering needs (one
 * backend held, one free), and any pool up to the bound is counted; a bound under 2 refuses a
 * pool of 2 as well, so that advice would not be true there.
 */
function poolTooLargeAdvice(bound: number): string {
  if (bound >= 2) return 'Point it at a pool of 2 (e.g. default_pool_size = 2), or raise --max-pool.';
  return (
    `--max-pool ${bound} refuses a pool of 2 as well, and steering needs at least 2 backends: give --max-pool ` +
    "at least the pool's size (or leave it out for the default), ideally against a pool of 2 (e.g. default_pool_size = 2)."
  );
}

async function openFirst(scn: Scenario, target: Target, opts: DiscoveryOptions): Promise<Session> {
  try {
    return await openWhenAdmitted(scn, 'D', opts.bounds.connectMs);
  } catch (err) {
    const received = err instanceof PooltestError ? Number(err.detail.received ?? 0) : 0;
    if (err instanceof PooltestError && err.code === 'STEP_TIMEOUT' && received > 0)
      throw new PooltestError(
        'STEP_TIMEOUT',
        `${describeTarget(target)} began answering the PostgreSQL startup (${received} bytes) but did not end it with ReadyForQuery within ${opts.bounds.connectMs} ms: a server stuck in its login, one that floods it, or a login slower than that bound (a busy machine, a distant or TLS target: raise --timeout)`,
        err.detail,
      );
    if (err instanceof PooltestError && err.code === 'STEP_TIMEOUT') {
      throw new PooltestError(
        'STEP_TIMEOUT',
        `${describeTarget(target)} accepted a TCP connection but did not answer the PostgreSQL startup within ${opts.bounds.connectMs} ms: not a PostgreSQL server, a pooler with no free slot, or a login slower than that bound (raise --timeout)`,
        err.detail,
      );
    }
    throw err;
  }
}

async function measureRtt(s: Session): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const step = await s.run('discovery.rtt', 'SELECT 1 AS one');
    times.push(step.durationMs);
  }
  times.sort((a, b) => a - b);
  return Math.max(0.1, times[2] ?? 1);
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Math.round(v)));
}
