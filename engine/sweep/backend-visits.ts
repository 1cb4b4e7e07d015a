/**
 * Visiting every backend of the pool, for the sweep and the tidy-up after each check. Holders
 * take as many backends at once as the pool is wide, each running the same statements on the
 * backend it got; then every backend the caller says it touched and that still exists must
 * have been visited, or another round goes looking for it (other clients may have held it).
 *
 * Two clients that each hold some backends while queueing for the rest (two pooltest runs
 * sweeping one pool) would wait on each other: a visitor queues only briefly, and a round cut
 * short lets go of everything and backs off for a random moment before the next, as in
 * Ethernet, until the deadline.
 */
import { sleep } from '../record/time.js';
import { dismiss, take, type Hold } from '../steering/holders.js';
import type { Scenario } from '../steering/scenario.js';
import { valueOf } from '../record/step-reading.js';
import { openOrRefused } from '../steering/admitted.js';
import type { Session } from '../session/session.js';
import { sparesAllowed } from '../steering/spare-session.js';
import type { StepRecord } from '../types.js';

export interface Visits {
  /** Backends a visit ran on. */
  visited: number[];
  /** Backends in `touched` still alive that no round reached. */
  unvisited: number[];
  /** The recorded visits, tagged `tag`, in order. */
  steps: StepRecord[];
}

export interface VisitOptions {
  /** How long a statement-strategy holder keeps its backend: long enough for the next to take another. */
  holdMs: number;
  /** How long one visitor may queue for a backend before its round gives up. */
  waitMs: number;
  /** No new round after this many ms. */
  deadlineMs: number;
  /**
   * A session through the target, already logging in, to ask which backends are still alive
   * (the sweep's catalog-wide session); without one, each question opens its own.
   */
  asker?: Promise<Session> | null;
  /**
   * Each visit is one message that commits as it ends (holders.ts, `oneMessage`): no COMMIT
   * round trip after it. The round's visitors all log in first and then send together, so a
   * hold only has to outlast the spread of their arrival at the pooler, not of their logins:
   * under transaction pooling it is {@link arrivalHoldMs}, not `holdMs` (which statement
   * pooling keeps).
   */
  oneMessage?: boolean;
}

/**
 * How long a one-message visit keeps its backend under transaction pooling: the visitors of a
 * round send at the same moment, so this covers the jitter of their arrival, a fraction of the
 * round trip (2 ms on loopback, 20 ms at most). Shorter than the COMMIT round trip it replaces.
 * A visitor that still lands on a backend another just left is seen in the record (a touched
 * backend not visited) and gets another round, as under any other traffic.
 */
export function arrivalHoldMs(d: Pick<Scenario['discovery'], 'rttMs'>): number {
  return Math.min(20, Math.max(2, Math.round(d.rttMs / 4)));
}

export async function visitBackends(
  scn: Scenario,
  tag: string,
  statements: string[],
  touched: readonly number[],
  opts: VisitOptions,
): Promise<Visits> {
  const d = scn.discovery;
  // Never more visitors at once than the pooler admits clients (it refuses the next one).
  let width = Math.min(d.mode === 'direct' ? 1 : (d.poolSize ?? d.poolBound), d.clientLimit?.clients ?? Infinity);
  const visited = new Set<number>();
  let unvisited: number[] = [];
  const deadline = Date.now() + opts.deadlineMs;
  for (let round = 1; ; round++) {
    const complete = await visitRound(scn, `${tag}${round}.`, tag, width, statements, opts);
    for (const step of scn.steps) if (step.tag === tag && step.pid !== null) visited.add(step.pid);
    unvisited = await stillAlive(
      scn,
      touched.filter((p) => !visited.has(p)),
      opts.asker ?? null,
    );
    if (unvisited.length === 0 && (complete || visited.size > 0)) break;
    if (Date.now() >= deadline) break;
    // A backend still missing after a full round of `width` holders means the pool is wider
    // than discovery counted (its count is a guess under traffic): hold more at once next time.
    if (complete) width = Math.max(width, visited.size + unvisited.length);
    else await sleep(Math.random() * 2 * opts.waitMs);
  }
  return { visited: [...visited].sort((a, b) => a - b), unvisited, steps: scn.steps.filter((s) => s.tag === tag) };
}

/**
 * One round; false when a visitor queued and the round let go early. The visitors connect and
 * take at the same time: they are meant to hold `width` backends at once anyway, and each one
 * holding its own keeps the others off its backend, so no order is needed to spread them, and
 * the round costs one login and one take of round trips instead of `width` of each.
 */
async function visitRound(
  scn: Scenario,
  label: string,
  tag: string,
  width: number,
  statements: string[],
  opts: VisitOptions,
): Promise<boolean> {
  const connectMs = Math.min(scn.ctx.bounds.connectMs, opts.waitMs + 3 * scn.discovery.connectLatencyMs);
  // All visitors at once: at a distance, one after another would cost a login's round trips
  // each. The width already respects how many clients the pooler admits (visitBackends).
  const visit = async (i: number): Promise<Hold | null> => {
    const s = await openVisitor(scn, `${label}${i}`, `${tag}.connect`, connectMs);
    return s ? take(scn, s, tag, { statements, releaseBy: 'wait', holdMs: opts.holdMs, waitMs: opts.waitMs }) : null;
  };
  const settled = await Promise.allSettled(
    opts.oneMessage
      ? visitTogether(scn, label, tag, width, statements, connectMs, opts)
      : Array.from({ length: width }, (_, i) => visit(i + 1)),
  );
  const holds = settled.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []));
  const complete = settled.every((r) => r.status === 'fulfilled' && r.value !== null && !r.value.waited);
  // Disconnect, not just commit: under session pooling a connected holder keeps its backend.
  // Together: nothing about the order in which a visit's backends come free matters. Where a
  // client holds no backend once its transaction ended (transaction and statement pooling),
  // the goodbyes need no waiting for: they end on their own, bounded like any close.
  if (sparesAllowed(scn.ctx)) {
    await Promise.all(holds.map((h) => h.release()));
    for (const h of holds) void h.session.close();
  } else {
    await Promise.all(holds.map((h) => dismiss([h])));
  }
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return complete;
}

/** One-message visits (VisitOptions.oneMessage): every visitor logs in, then all send at once. */
function visitTogether(
  scn: Scenario,
  label: string,
  tag: string,
  width: number,
  statements: string[],
  connectMs: number,
  opts: VisitOptions,
): Array<Promise<Hold | null>> {
  const logins = Array.from({ length: width }, (_, i) =>
    openVisitor(scn, `${label}${i + 1}`, `${tag}.connect`, connectMs),
  );
  const holdMs = scn.discovery.holderStrategy === 'statement' ? opts.holdMs : arrivalHoldMs(scn.discovery);
  // A failed login fails only its own visit; the others still wait for every login to end.
  const ready = Promise.allSettled(logins);
  return logins.map(async (login) => {
    await ready;
    const s = await login;
    return s
      ? take(scn, s, tag, { statements, releaseBy: 'wait', holdMs, waitMs: opts.waitMs, oneMessage: true })
      : null;
  });
}

/** tryOpen, with a refusal at capacity (a pooler that refuses instead of queueing) read as a queue: null. */
async function openVisitor(scn: Scenario, label: string, tag: string, connectMs: number): Promise<Session | null> {
  const s = await openOrRefused(scn, label, connectMs, tag);
  return s === 'refused' ? null : s;
}

/** Which of `pids` still exist (pg_stat_activity shows every backend's pid to every login). */
async function stillAlive(scn: Scenario, pids: number[], asker: Promise<Session> | null): Promise<number[]> {
  if (pids.length === 0) return [];
  // A given session that failed to log in is no reason not to ask: a session of its own asks.
  const given = asker ? await asker.catch(() => null) : null;
  const s = given ?? (await scn.open(`alive${scn.steps.length}`));
  const step = await s.run(
    'visit.alive',
    `SELECT coalesce(array_agg(pid), '{}') AS alive FROM pg_stat_activity WHERE pid = ANY(ARRAY[${pids.join(', ')}]::int[])`,
  );
  if (!given) await s.close();
  const alive = valueOf(step, 'alive');
  // Unreadable: count them all as alive, so they are reported rather than silently skipped.
  return Array.isArray(alive) ? alive.map(Number) : pids;
}
