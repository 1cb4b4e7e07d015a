/**
 * Discovery: what kind of target is this, before any check runs? Everything is learned by
 * observation through ordinary client connections; nothing needs setting up on the pooler.
 *
 *  1. Reach it (TCP, then a real login), read the server version, time a few round trips.
 *  2. Ask who it is: `SHOW pool_version` answers through pgpool-II; PgBouncer's admin console
 *     (database `pgbouncer`) answers `SHOW VERSION` when the user is an admin or stats user.
 *  3. Does it accept a transaction block? Statement pooling refuses `BEGIN`.
 *  4. With client D connected and idle on backend d, holders take backends one by one until
 *     the pooler queues one (the pool is full) or the bound is reached. A holder landing on d
 *     means backends are shared between connected clients: transaction pooling.
 *  5. With d held, D's next transaction shows whether a client keeps its backend.
 *  6. A new client after D leaves shows whether backends are reused at all (direct Postgres
 *     starts a new process for every connection).
 */
import { PooltestError } from './errors.js';
import { probeTcp } from './session/connect.js';
import { Session } from './session/session.js';
import { Scenario, type RunContext } from './steering/scenario.js';
import { releaseAll, take, type Hold } from './steering/holders.js';
import { findStaleBackends, staleCondition, staleNote } from './steering/stale-backends.js';
import { openOrRefused, openWhenAdmitted } from './steering/admitted.js';
import { isCapacityRefusal } from './judging/capacity-refusal.js';
import { depthFor } from './steering/spare-session.js';
import { protocolViolationIn, violationError } from './judging/protocol.js';
import { sleep } from './time.js';
import { describeTarget, type Target } from './target.js';
import type { Discovery } from './types.js';

export interface DiscoveryOptions {
  bounds: RunContext['bounds'];
  /** Most backends to count before calling the pool "too large to steer". */
  poolBound: number;
  /** Fixed wait bound in ms; computed from round trips when absent. */
  waitMs?: number;
  /** Raise POOL_TOO_LARGE when transaction pooling has more backends than the bound. */
  failOnLargePool?: boolean;
  /** The run's id: discovery's sessions carry the run's application_name (see Session). */
  runId?: string;
  /** Stops discovery at once (its sessions fail, and discovery throws). */
  signal?: AbortSignal;
  /**
   * An earlier discovery of the same target, for a recount (engine/pool-watch.ts): its round
   * trips, identity and transaction-block answer are taken as they were, and only the pool is
   * counted and classified again. At a distance that saves most of discovery's round trips.
   */
  known?: Discovery;
}

export async function discover(target: Target, opts: DiscoveryOptions): Promise<Discovery> {
  await probeTcp(target, opts.bounds.connectMs);
  const d: Discovery = {
    mode: 'direct',
    poolSize: null,
    poolBound: opts.poolBound,
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
    waitBoundMs: opts.waitMs ?? 250,
    notes: [],
    steps: [],
  };
  const scn = new Scenario(
    { target, direct: null, discovery: d, runId: opts.runId ?? 'discovery', bounds: opts.bounds },
    opts.signal,
  );
  try {
    const t0 = performance.now();
    let first = await openFirst(scn, target, opts);
    d.connectLatencyMs = Math.round(performance.now() - t0);
    const serverSql =
      "SELECT pg_backend_pid() AS pid, current_setting('server_version') AS version, current_setting('server_version_num')::int AS num";
    let info = await first.run('discovery.server', serverSql);
    // Refused at capacity before any backend answered (other clients hold the whole pool, and
    // the pooler refuses rather than queues): try again within the connect bound, then say so.
    for (const deadline = Date.now() + opts.bounds.connectMs; isCapacityRefusal(info.error) && Date.now() < deadline;) {
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
    d.serverVersion = String(info.results[0]?.[0]?.version ?? '');
    d.serverVersionNum = Number(info.results[0]?.[0]?.num ?? 0);
    if (opts.known) await recount(scn, d, first, opts, opts.known);
    else {
      // T, the second client, logs in while D times its round trips: a login is several.
      const second = secondLogin(scn);
      d.rttMs = await measureRtt(first);
      // PgBouncer's admin console is a database of its own that uses none of the pool's
      // backends: asking it while the transaction-block probe runs saves a login's round trips.
      const pgpool = await askPgpool(first);
      const [bouncer, warmConnectMs] = await Promise.all([
        pgpool ? null : askPgBouncer(scn, target),
        probeTransactionBlocks(d, first, second),
      ]);
      d.pooler = pgpool ?? bouncer;
      // The first login of a fresh process also pays for loading pg and warming its crypto (SCRAM):
      // T's login, the second, is what later logins cost. The faster of the two sets the bounds.
      if (warmConnectMs !== null) {
        d.connectLatencyMs = Math.min(d.connectLatencyMs, warmConnectMs);
        d.waitBoundMs = opts.waitMs ?? clamp(Math.max(250, 10 * d.rttMs, 4 * d.connectLatencyMs), 250, 3000);
      }
      // Dead runs' leftovers: reported once here, and never counted as the pool's (busyElsewhere).
      const stale = staleNote(await findStaleBackends(first, scn.ctx.runId, opts.bounds.stepMs));
      if (stale) d.notes.push(stale);
      const seen = await countPool(scn, d, first, opts);
      if (modeDecided(d)) {
        // Connected clients already share backends: the reuse probe cannot change the mode,
        // so the burst of idle logins goes alongside it.
        classify(d);
        await Promise.all([readReuse(scn, d, seen, opts), probeClientRoom(scn, d)]);
      } else {
        await readReuse(scn, d, seen, opts);
        classify(d);
        await probeClientRoom(scn, d);
      }
    }
  } catch (err) {
    // A malformed message explains whatever discovery made of it (NOT_POSTGRES, STEERING_FAILED...).
    const v = protocolViolationIn(scn.steps);
    throw v ? violationError(v, 'during discovery, before any check could run') : err;
  } finally {
    await scn.closeAll();
    d.steps = scn.steps;
  }
  const violation = protocolViolationIn(d.steps);
  if (violation) throw violationError(violation, 'during discovery, before any check could run');
  if (opts.failOnLargePool !== false && d.sharedAcrossClients && d.poolSize === null) {
    throw new PooltestError(
      'POOL_TOO_LARGE',
      `${describeTarget(target)} shares backends between clients but gave more than ${opts.poolBound} at once: pooltest cannot steer a pool that large. Point it at a pool of 2 (e.g. default_pool_size = 2), or raise --max-pool.`,
      { bound: opts.poolBound },
    );
  }
  return d;
}

/**
 * The pool counted again with what `known` already says of the target: what a destructive
 * check can change is the number of backends and how they are shared, not the round trip, the
 * pooler's name, or whether it accepts BEGIN. A pooler that changed its mind about BEGIN makes
 * holders fail, which the count reports as a failure like any other.
 */
async function recount(
  scn: Scenario,
  d: Discovery,
  first: Session,
  opts: DiscoveryOptions,
  known: Discovery,
): Promise<void> {
  Object.assign(d, {
    rttMs: known.rttMs,
    connectLatencyMs: Math.min(d.connectLatencyMs, known.connectLatencyMs),
    waitBoundMs: opts.waitMs ?? known.waitBoundMs,
    pooler: known.pooler,
    transactionBlocks: known.transactionBlocks,
    holderStrategy: known.holderStrategy,
  });
  // Where the pooler is known to share backends and to admit idle clients freely, a holder's
  // login holds nothing: the next holder logs in while this one takes (see countPool).
  const knownShared =
    (known.mode === 'transaction' || known.mode === 'statement') && !known.clientLimit && !known.spareRoomRefused;
  // Only a smaller pool matters to a recount (engine/pool-watch.ts): holding as many backends as
  // before proves it is not, with no wait for a holder the pooler queues.
  const seen = await countPool(scn, d, first, {
    ...opts,
    knownShared,
    ...(known.poolSize ? { stopAt: known.poolSize } : {}),
  });
  // A recount that saw backends shared between connected clients needs no new client.
  if (!modeDecided(d)) await readReuse(scn, d, seen, opts);
  classify(d);
}

async function openFirst(scn: Scenario, target: Target, opts: DiscoveryOptions): Promise<Session> {
  try {
    return await openWhenAdmitted(scn, 'D', opts.bounds.connectMs);
  } catch (err) {
    if (err instanceof PooltestError && err.code === 'STEP_TIMEOUT') {
      throw new PooltestError(
        'STEP_TIMEOUT',
        `${describeTarget(target)} accepted a TCP connection but did not answer the PostgreSQL startup within ${opts.bounds.connectMs} ms: not a PostgreSQL server, or a pooler with no free slot`,
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

/** Names the pooler when it says who it is; null means "no pooler identified", not "none". */
async function askPgpool(first: Session): Promise<Discovery['pooler']> {
  const pgpool = await first.run('discovery.identify', 'SHOW pool_version');
  const pgpoolVersion = pgpool.results[0]?.[0]?.pool_version;
  if (!pgpool.error && typeof pgpoolVersion === 'string')
    return { name: 'pgpool-II', version: pgpoolVersion, how: 'SHOW pool_version' };
  return null;
}

async function askPgBouncer(scn: Scenario, target: Target): Promise<Discovery['pooler']> {
  try {
    const admin = await Session.open('admin', { ...target, database: 'pgbouncer' }, scn.recorder, {
      connectMs: scn.ctx.bounds.connectMs,
      stepMs: scn.ctx.bounds.stepMs,
    });
    try {
      const v = await admin.run('discovery.identify', 'SHOW VERSION');
      const text = v.results[0]?.[0]?.version;
      if (!v.error && typeof text === 'string' && /pgbouncer/i.test(text)) {
        return {
          name: 'PgBouncer',
          version: text.replace(/^pgbouncer\s*/i, ''),
          how: 'SHOW VERSION on the admin console',
        };
      }
    } finally {
      await admin.close();
    }
  } catch (err) {
    // A malformed answer is a finding even here; anything else (not an admin user, not
    // PgBouncer) leaves the identity unknown, which is fine.
    if (err instanceof PooltestError && err.code === 'PROTOCOL_VIOLATION') throw err;
  }
  return null;
}

interface SecondLogin {
  session: Promise<Session | null | 'refused'>;
  /** How long the login took, once it ended. */
  ms: Promise<number>;
}

/** T's login through the target, timed (a failure rejects `session`, as openOrRefused does). */
function secondLogin(scn: Scenario): SecondLogin {
  const t0 = performance.now();
  const session = openOrRefused(scn, 'T', scn.ctx.bounds.connectMs, 'discovery.transaction-block.connect');
  // Awaited by the transaction-block probe; a failure before that is discovery's own.
  session.catch(() => undefined);
  const ms = session.then(
    () => Math.round(performance.now() - t0),
    () => 0,
  );
  return { session, ms };
}

/** Returns how long T's login took, or null when the pooler admitted no second client. */
async function probeTransactionBlocks(d: Discovery, first: Session, second: SecondLogin): Promise<number | null> {
  const s = await second.session;
  // A pooler that admits one client at a time refuses T while D is connected: probe on D.
  if (s === 'refused' || s === null) {
    d.notes.push('transaction blocks probed on the first client: the pooler admitted no second one');
    await probeOn(first, d);
    return null;
  }
  const connectMs = await second.ms;
  await probeOn(s, d);
  await s.close();
  return connectMs;
}

async function probeOn(s: Session, d: Discovery): Promise<void> {
  const step = await s.run('discovery.transaction-block', 'BEGIN; SELECT pg_backend_pid() AS pid');
  if (step.txStatus === 'T') {
    await s.run('discovery.transaction-block', 'COMMIT');
  } else {
    d.transactionBlocks = 'refused';
    d.holderStrategy = 'statement';
    d.notes.push(`transaction blocks refused: ${step.error?.message ?? 'the connection was closed'}`);
  }
}

async function countPool(
  scn: Scenario,
  d: Discovery,
  first: Session,
  /**
   * knownShared: a recount of a pooler known to share backends, where an idle login holds
   * nothing; stopAt: the count ends once it holds this many backends.
   */
  opts: DiscoveryOptions & { knownShared?: boolean; stopAt?: number },
): Promise<Seen> {
  // Read D's backend afresh: the transaction-block probe may have cost the pool a server
  // (PgBouncer closes it when it refuses BEGIN in statement mode).
  const idle = await first.run('discovery.idle', 'SELECT pg_backend_pid() AS pid');
  if (idle.pid === null)
    throw new PooltestError(
      'STEERING_FAILED',
      `the first client lost its connection during discovery: ${idle.error?.message ?? 'no pid'}`,
    );
  const firstPid = idle.pid;
  const holders: Hold[] = [];
  let waited = false;
  let retries = 0;
  let busyAtQueue = 0;
  const connectMs = Math.min(opts.bounds.connectMs, d.waitBoundMs + 3 * d.connectLatencyMs);
  const login = (label: number): Promise<Session | null | 'refused'> =>
    openOrRefused(scn, `H${label}`, connectMs, 'discovery.hold.connect');
  // Logins started ahead of their holder's turn, by label.
  const ahead = new Map<number, Promise<Session | null | 'refused'>>();
  const loginAhead = (label: number): void => {
    if (ahead.has(label)) return;
    const pending = login(label);
    pending.catch(() => undefined); // awaited in its turn, or dropped below
    ahead.set(label, pending);
  };
  let reachedStop = false;
  // The most holders the count can need: one past the bound, or the stopping point.
  const most = Math.min(opts.poolBound + 1, opts.stopAt ?? Infinity);
  // As many holders as the count stops at log in together; a holder logs in one ahead else.
  if (opts.knownShared) for (let label = 1; label <= Math.min(most, opts.stopAt ?? 1); label++) loginAhead(label);
  // A login ahead that the count did not need is closed (an idle client: it holds nothing).
  const dropAhead = async (): Promise<void> => {
    const extras = await Promise.all([...ahead.values()].map((p) => p.catch(() => null)));
    ahead.clear();
    await Promise.all(extras.map((x) => (x && x !== 'refused' ? x.close() : undefined)));
  };
  try {
    for (let label = 1; holders.length <= opts.poolBound; label++) {
      const started = performance.now();
      const s: Session | null | 'refused' = await (ahead.get(label) ?? login(label));
      ahead.delete(label);
      if (opts.knownShared && s && s !== 'refused' && holders.length + 1 < most) loginAhead(label + 1);
      const h = s && s !== 'refused' ? await take(scn, s, 'discovery.hold') : null;
      // Refused at capacity, at login or while queued for a backend: the pooler's boundary,
      // found by refusal instead of a queue (it counted the pool).
      const refusal =
        s === 'refused'
          ? [...scn.steps].reverse().find((x) => x.session === `H${label}` && x.tag === 'discovery.hold.connect')?.error
          : h && !h.waited && h.pid === null && isCapacityRefusal(h.step?.error)
            ? h.step?.error
            : null;
      if (refusal) {
        d.clientLimit = {
          clients: 1 + holders.length,
          refusal: `${refusal.code ? `${refusal.code} ` : ''}${refusal.message.replace(/^[A-Z_]+: (cannot connect to \S+: )?/, '')}`,
        };
        d.notes.push(
          `the pooler refused client ${2 + holders.length} instead of queueing it (${d.clientLimit.refusal}): ${d.clientLimit.clients} client(s) admitted at once`,
        );
        waited = true;
        break;
      }
      if (h && !h.waited) {
        if (h.pid === null)
          throw new PooltestError(
            'STEERING_FAILED',
            `a holder could not take a backend: ${h.step?.error?.message ?? 'no pid'}`,
          );
        holders.push(h);
        if (holders.length >= most && opts.stopAt !== undefined) {
          reachedStop = true;
          break;
        }
        continue;
      }
      // Queued: a full pool, or one whose other backends were busy with other clients' traffic
      // for a moment? Only the first means the pool is this size; other traffic gets a retry.
      const busy = await busyElsewhere(scn, holders, performance.now() - started);
      if (busy > 0 && retries < QUEUE_RETRIES) {
        retries++;
        continue;
      }
      if (busy > 0) {
        busyAtQueue = busy;
        d.notes.push(
          `${busy} other backend(s) of this database and user stayed busy while the pool looked full: they are counted in, so the pool size is an upper bound`,
        );
      }
      waited = true;
      break;
    }
  } finally {
    await dropAhead();
  }
  const pids = new Set(holders.map((h) => h.pid));
  d.sharedAcrossClients = pids.has(firstPid);
  // Under traffic that never let go, the busy backends may be the pool's: count them, since
  // steering and the sweep only lose by undercounting (a backend never visited or tried).
  if (waited) d.poolSize = new Set([...pids, firstPid]).size + busyAtQueue;
  else if (reachedStop) d.poolSize = new Set([...pids, firstPid]).size;
  // With D's old backend held, D's next transaction shows whether a client keeps its backend.
  const onFirst = holders.find((h) => h.pid === firstPid);
  const spare = holders.find((h) => h.pid !== firstPid);
  if (onFirst && spare) {
    await spare.release();
    holders.splice(holders.indexOf(spare), 1);
    await readKeep(first, firstPid, d);
  } else if (!onFirst) {
    await readKeep(first, firstPid, d);
  }
  await releaseAll(holders);
  await first.close();
  d.notes.push(
    waited
      ? `pool full at ${d.poolSize} backend(s): the next client was ${d.clientLimit ? 'refused' : 'queued'}`
      : reachedStop
        ? `at least ${d.poolSize} backend(s), as many as before: counted no further`
        : `no queueing up to ${opts.poolBound} concurrent backends`,
  );
  return { firstPid, pids };
}

/** The backends the count saw: D's, and those its holders took. */
interface Seen {
  firstPid: number;
  pids: Set<number | null>;
}

/**
 * Whether the mode is known without the reuse probe: reuse after a disconnect only tells
 * session pooling from Postgres itself (classify).
 */
function modeDecided(d: Discovery): boolean {
  return d.transactionBlocks === 'refused' || d.sharedAcrossClients || !d.clientKeepsBackend;
}

/** A new client after D left: on a backend seen before means backends are reused at all. */
async function readReuse(scn: Scenario, d: Discovery, seen: Seen, opts: DiscoveryOptions): Promise<void> {
  const e = await openWhenAdmitted(scn, 'E', opts.bounds.connectMs);
  const next = await e.run('discovery.reuse', 'SELECT pg_backend_pid() AS pid');
  d.reuseAfterDisconnect = next.pid !== null && (next.pid === seen.firstPid || seen.pids.has(next.pid));
}

/** D's next transaction: on another backend means a connected client does not keep its backend. No answer tells nothing. */
async function readKeep(first: Session, firstPid: number, d: Discovery): Promise<void> {
  const again = await first.run('discovery.keep', 'SELECT pg_backend_pid() AS pid');
  if (again.pid !== null) d.clientKeepsBackend = again.pid === firstPid;
  else d.notes.push(`whether a client keeps its backend is unknown: ${again.error?.message ?? 'no pid'}`);
}

/** Fresh holders after a queue that other traffic explains (see countPool). */
const QUEUE_RETRIES = 3;

/**
 * Backends of this database and user, other than the ones we hold, that were not idle during
 * the last `sinceMs` (read from a holder inside its transaction: it has a backend to ask
 * from). -1 when no holder can ask (statement-strategy holders are busy sleeping).
 */
async function busyElsewhere(scn: Scenario, holders: Hold[], sinceMs: number): Promise<number> {
  const asker = [...holders].reverse().find((h) => h.session.alive && h.step?.txStatus === 'T');
  if (!asker) return -1;
  const held = holders.map((h) => h.pid).filter((p): p is number => p !== null);
  // Since this holder started: D's last query and the earlier holders' takes came before.
  const windowMs = Math.floor(sinceMs);
  const step = await asker.session.run(
    'discovery.probe',
    `SELECT pg_stat_clear_snapshot(); SELECT count(*)::int AS busy_others FROM pg_stat_activity
    WHERE datname = current_database() AND usename = session_user AND backend_type = 'client backend' AND pid <> ALL(ARRAY[${held.join(', ')}]::int[])
      AND NOT ${staleCondition(scn.ctx.runId, scn.ctx.bounds.stepMs)}
      AND (state IS DISTINCT FROM 'idle' OR state_change > clock_timestamp() - make_interval(secs => ${(windowMs / 1000).toFixed(3)}))`,
  );
  const n = step.results[1]?.[0]?.busy_others;
  return typeof n === 'number' ? n : -1;
}

function classify(d: Discovery): void {
  if (d.transactionBlocks === 'refused') d.mode = 'statement';
  // A connected client moved to another backend: backends are not bound to clients. Under
  // other traffic this can be the only sign, when no holder could reach the idle client's
  // backend before the traffic took it.
  else if (d.sharedAcrossClients || !d.clientKeepsBackend) d.mode = 'transaction';
  else if (d.reuseAfterDisconnect || d.poolSize !== null) d.mode = 'session';
  else d.mode = 'direct';
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Math.round(v)));
}

/**
 * Where a run will keep logins ahead of need (transaction and statement pooling: see
 * steering/spare-session.ts), checks that the pooler admits that many idle clients beside a
 * check's own sessions, all at once, before any check relies on it. A pooler with a client
 * limit (PgBouncer's max_client_conn) refuses some: that is its client limit, and the run then
 * keeps no spares, so its own idle logins never take the slots its checks need. Logins only, no
 * query: no backend is involved.
 */
async function probeClientRoom(scn: Scenario, d: Discovery): Promise<void> {
  if ((d.mode !== 'transaction' && d.mode !== 'statement') || d.clientLimit) return;
  // The spares, plus a check's own sessions (A, an observer, a notifier).
  const want = depthFor({ discovery: d }) + 3;
  const connectMs = Math.min(scn.ctx.bounds.connectMs, d.waitBoundMs + 3 * d.connectLatencyMs);
  const tries = await Promise.all(
    Array.from({ length: want }, (_, i) =>
      openOrRefused(scn, `R${i + 1}`, connectMs, 'discovery.room.connect').catch(() => null),
    ),
  );
  const admitted = tries.filter((t): t is Session => t !== null && t !== 'refused');
  await Promise.all(admitted.map((s) => s.close()));
  if (!tries.includes('refused')) return;
  const refusal = scn.steps
    .filter((s) => s.tag === 'discovery.room.connect' && isCapacityRefusal(s.error))
    .at(-1)?.error;
  const text = refusal
    ? `${refusal.code ? `${refusal.code} ` : ''}${refusal.message.replace(/^[A-Z_]+: (cannot connect to \S+: )?/, '')}`
    : 'refused at capacity';
  // Not a clientLimit: how many it admits depends on who else was connected in that instant,
  // and the landing proofs read clientLimit as the pool's own boundary (judging/landing.ts).
  d.spareRoomRefused = text;
  d.notes.push(
    `the pooler refused ${want - admitted.length} of ${want} idle logins at once (${text}): no logins are kept ahead of need`,
  );
}
