/**
 * Counting the pool: with client D connected and idle on backend d, holders take backends one
 * by one until the pooler queues one (the pool is full), refuses one (a client limit), or the
 * bound is reached. A holder landing on d means backends are shared between connected clients;
 * with d held, D's next transaction shows whether a client keeps its backend; a new client
 * after D left shows whether backends are reused at all. Discovery and the recount after a
 * destructive check (engine/discovery/pool-watch.ts) both count this way; classify names the mode.
 */
import { PooltestError } from '../record/errors.js';
import { isCapacityRefusal } from '../record/capacity-refusal.js';
import type { Session } from '../session/session.js';
import { openOrRefused, openWhenAdmitted } from '../steering/admitted.js';
import { take, type Hold } from '../steering/holders.js';
import type { Scenario } from '../steering/scenario.js';
import { staleCondition } from '../steering/stale-backends.js';
import type { DiscoveryOptions } from './options.js';
import type { OptionalProbes } from './probes.js';
import type { Discovery } from '../types.js';
import { decodeMalformedError, type DecodedRefusal } from '../wire/malformed-refusal.js';
import { violationIn } from '../wire/violation.js';

export async function countPool(
  scn: Scenario,
  d: Discovery,
  first: Session,
  /**
   * knownShared: a recount of a pooler known to share backends, where an idle login holds
   * nothing; stopAt: the count ends once it holds this many backends; idlePid: D's backend as
   * its last step (nothing since) read it, so it need not be read again; firstHolder: a client
   * already connected and idle outside a transaction (discovery's T), taken as holder 1 instead
   * of a new login: it is what a new login would be, a client with no transaction open.
   */
  opts: DiscoveryOptions & { knownShared?: boolean; stopAt?: number; idlePid?: number; firstHolder?: Session | null },
  /** Discovery's wire findings: a holder refused with a malformed refusal is one (see below). */
  probes?: OptionalProbes,
): Promise<Seen> {
  // Read D's backend afresh: the transaction-block probe may have cost the pool a server
  // (PgBouncer closes it when it refuses BEGIN in statement mode).
  const idle =
    opts.idlePid !== undefined
      ? { pid: opts.idlePid }
      : await first.run('discovery.idle', 'SELECT pg_backend_pid() AS pid');
  if (idle.pid === null) {
    // Where the pooler fell silent first, when that was another client's step (pgagroal 1.6.0's
    // transaction pipeline left a second client's first transaction unanswered, then D's too).
    const silent = scn.steps.find((s) => s !== idle && /no answer within/.test(s.error?.message ?? ''));
    const first = silent
      ? `; the target first stopped answering ${silent.session}'s ${silent.tag} step (${silent.error!.message})`
      : '';
    const why = 'error' in idle ? idle.error?.message : undefined;
    throw new PooltestError(
      'STEERING_FAILED',
      `the first client lost its connection during discovery: ${why ?? 'no pid'}${first}`,
    );
  }
  const firstPid = idle.pid;
  const holders: Hold[] = [];
  let waited = false;
  let retries = 0;
  let busyAtQueue = 0;
  const connectMs = Math.min(opts.bounds.connectMs, d.waitBoundMs + 3 * d.connectLatencyMs);
  // Refusals whose words were clear but whose framing was not (engine/wire/malformed-refusal.ts).
  const malformed = new Map<number, DecodedRefusal>();
  const login = (label: number): Promise<Session | null | 'refused'> =>
    openOrRefused(scn, `H${label}`, connectMs, 'discovery.hold.connect').catch((err: unknown) => {
      const violation = violationIn(err);
      const said = violation ? decodeMalformedError(violation) : null;
      if (!probes || !violation || !said || !isCapacityRefusal(said)) throw err;
      probes.record(
        {
          probe: 'discovery.hold.connect',
          session: `H${label}`,
          connection: 'a holder counting the pool, refused at login',
        },
        `read as the refusal it spells out (${said.code} ${said.message}): the pool was counted up to it`,
        violation,
      );
      malformed.set(label, said);
      return 'refused' as const;
    });
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
    // A recount that knows how many to hold: all of them take at once (one round trip instead
    // of one per backend). Holding that many together proves the pool is no smaller; any
    // other answer (a login refused, a take queued) lets go of all of them and counts one by
    // one, as a first discovery does, with fresh holders.
    const together = opts.knownShared && opts.stopAt !== undefined ? await takeTogether(scn, ahead, most) : null;
    if (together?.held) {
      holders.push(...together.held);
      reachedStop = true;
    }
    for (let label = together?.next ?? 1; !reachedStop && holders.length <= opts.poolBound; label++) {
      const started = performance.now();
      const given = label === 1 && opts.firstHolder?.alive ? opts.firstHolder : null;
      const s: Session | null | 'refused' = given ?? (await (ahead.get(label) ?? login(label)));
      ahead.delete(label);
      // One ahead, where an idle login holds nothing: a recount of a pooler known to share
      // backends, or a count whose holders already took D's backend while D stayed connected
      // (backends are shared between connected clients: transaction or statement pooling).
      // Never two: the next login is always the only one in flight, as when they log in in
      // turn, so a pooler that refuses at its client limit refuses the same client.
      const shared = opts.knownShared || holders.some((h) => h.pid === firstPid);
      // A given first holder is already connected: the next login is the only one in flight
      // while it takes, as in turn, and under session pooling it queues or is refused just as
      // it would after the take (at a distance, the take's round trip off the critical path).
      const next = shared || given !== null;
      if (next && s && s !== 'refused' && holders.length + 1 < most) loginAhead(label + 1);
      const h = s && s !== 'refused' ? await take(scn, s, 'discovery.hold') : null;
      // Refused at capacity, at login or while queued for a backend: the pooler's boundary,
      // found by refusal instead of a queue (it counted the pool).
      const refusal =
        s === 'refused'
          ? (malformed.get(label) ??
            [...scn.steps].reverse().find((x) => x.session === `H${label}` && x.tag === 'discovery.hold.connect')
              ?.error)
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
  const held = new Set([...pids, firstPid]).size;
  if (waited) d.poolSize = held + busyAtQueue;
  else if (reachedStop) d.poolSize = held;
  // What the number rests on, for the reports to say beside it (a size above the configured
  // pool is other clients' traffic counted in, not a miscount).
  if (waited || reachedStop)
    d.poolCount = {
      held,
      busyElsewhere: waited ? busyAtQueue : 0,
      end: !waited ? 'as-before' : d.clientLimit ? 'refused' : 'queued',
    };
  // With D's old backend held, D's next transaction shows whether a client keeps its backend.
  const onFirst = holders.find((h) => h.pid === firstPid);
  const spare = holders.find((h) => h.pid !== firstPid);
  if (onFirst && spare && opts.knownShared && reachedStop) {
    // A recount that held as many backends as before: nothing it would learn from D's next
    // transaction changes (the mode is known and the pool is no smaller; discovery/recount.ts).
  } else if (onFirst && spare) {
    // D's next transaction is sent as the spare lets go: it cannot land on its old backend (a
    // holder keeps it) and at worst waits for the spare's backend a moment, which is where it
    // would have gone had it been sent after.
    await Promise.all([spare.release(), readKeep(first, firstPid, d)]);
    holders.splice(holders.indexOf(spare), 1);
  } else if (!onFirst) {
    await readKeep(first, firstPid, d);
  }
  // Together: the count is over, and which backend comes free first decides nothing after it.
  await Promise.all(holders.map((h) => h.release()));
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

/**
 * The recount's quick path: the logins ahead for labels 1..`count` take a backend each, at
 * the same time. `held` when every one got its own backend at once; else they are released
 * and closed, and `next` is the first label the count one by one may use.
 */
async function takeTogether(
  scn: Scenario,
  ahead: Map<number, Promise<Session | null | 'refused'>>,
  count: number,
): Promise<{ held: Hold[] | null; next: number }> {
  const labels = Array.from({ length: count }, (_, i) => i + 1);
  const sessions = await Promise.all(labels.map((l) => ahead.get(l) ?? Promise.resolve(null)));
  for (const l of labels) ahead.delete(l);
  const open = sessions.filter((s): s is Session => s !== null && s !== 'refused');
  const holds = open.length === count ? await Promise.all(open.map((s) => take(scn, s, 'discovery.hold'))) : [];
  const pids = new Set(holds.map((h) => h.pid));
  if (holds.length === count && holds.every((h) => !h.waited && h.pid !== null) && pids.size === count)
    return { held: holds, next: count + 1 };
  await Promise.all(holds.map((h) => h.release()));
  await Promise.all(open.map((s) => s.close()));
  return { held: null, next: count + 1 };
}

/** The backends the count saw: D's, and those its holders took. */
export interface Seen {
  firstPid: number;
  pids: Set<number | null>;
}

/**
 * Whether the mode is known without the reuse probe: reuse after a disconnect only tells
 * session pooling from Postgres itself (classify).
 */
export function modeDecided(d: Discovery): boolean {
  return d.transactionBlocks === 'refused' || d.sharedAcrossClients || !d.clientKeepsBackend;
}

/** A new client after D left: on a backend seen before means backends are reused at all. */
export async function readReuse(scn: Scenario, d: Discovery, seen: Seen, opts: DiscoveryOptions): Promise<void> {
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

export function classify(d: Discovery): void {
  if (d.transactionBlocks === 'refused') d.mode = 'statement';
  // A connected client moved to another backend: backends are not bound to clients. Under
  // other traffic this can be the only sign, when no holder could reach the idle client's
  // backend before the traffic took it.
  else if (d.sharedAcrossClients || !d.clientKeepsBackend) d.mode = 'transaction';
  else if (d.reuseAfterDisconnect || d.poolSize !== null) d.mode = 'session';
  else d.mode = 'direct';
}
