/**
 * Holding a backend: the primitive that makes steering possible. A holder is a session that
 * keeps whatever backend it was given busy, so the pooler must send everyone else elsewhere.
 *
 * Two strategies, chosen by discovery:
 * - `transaction`: `BEGIN; SELECT pg_backend_pid(); ...` and the backend is ours until COMMIT.
 * - `statement`: for poolers that refuse transaction blocks (PgBouncer's statement mode), one
 *   long statement holds the backend instead: `SELECT pg_backend_pid(); ...; SELECT pg_sleep(n)`.
 *   The pid arrives with the first row, before the sleep. Release is either a CancelRequest
 *   (for holders that carry no state we care about: a cancel rolls the implicit transaction
 *   back) or waiting for the sleep to end (for holders whose statements must commit).
 */
import { sendCancelRequest } from '../session/cancel.js';
import { startLongStatement } from './long-statement.js';
import { within } from '../time.js';
import { releaseTagFor } from './tags.js';
import type { Session } from '../session/session.js';
import type { Discovery, StepRecord } from '../types.js';
import type { Scenario } from './scenario.js';

export interface Hold {
  session: Session;
  /** Backend the holder sits on, or null when it got none. */
  pid: number | null;
  /** The pooler queued the holder instead of giving it a backend within the wait bound. */
  waited: boolean;
  /** The recorded take (for `statement` holders: once released). */
  step: StepRecord | null;
  /** Ends the hold; resolves once the backend is free again (bounded). */
  release(tag?: string): Promise<void>;
}

export interface TakeOptions {
  /** Statements run on the held backend right after reading its pid. */
  statements?: string[];
  /** How a statement-strategy holder lets go; `wait` lets its statements commit. */
  releaseBy?: 'cancel' | 'wait';
  /** For `releaseBy: 'wait'`: how long the hold lasts, in ms. */
  holdMs?: number;
  /** Override of the wait bound (ms). */
  waitMs?: number;
  /**
   * Hold with one statement (the `statement` strategy) whatever discovery chose: for a holder
   * whose statements need no transaction block and must commit anyway (the tidy-up's visits).
   * They commit as the message ends, so no COMMIT follows: at a distance, one round trip fewer.
   * Use with `releaseBy: 'wait'` and a `holdMs` that only has to outlast the other holders'
   * arrival.
   */
  oneMessage?: boolean;
}

/**
 * How long a landing's hold (`releaseBy: 'wait'`) lasts: long enough that the state read on the
 * held backend commits and the observer's reading comes back before the hold ends, at 400 ms on
 * loopback and twenty round trips on a slow network. The one definition every landing uses.
 */
export function landingHoldMs(discovery: Pick<Discovery, 'rttMs'>): number {
  return Math.max(400, 20 * discovery.rttMs);
}

/** Takes a backend with the strategy discovery chose. */
export function take(scn: Scenario, session: Session, tag: string, opts: TakeOptions = {}): Promise<Hold> {
  return scn.discovery.holderStrategy === 'statement' || opts.oneMessage === true
    ? takeWithStatement(scn, session, tag, opts)
    : takeWithTransaction(scn, session, tag, opts);
}

async function takeWithTransaction(scn: Scenario, session: Session, tag: string, opts: TakeOptions): Promise<Hold> {
  const sql = ['BEGIN', 'SELECT pg_backend_pid() AS pid', ...(opts.statements ?? [])].join('; ');
  const step = await session.run(tag, sql, { boundMs: opts.waitMs ?? scn.waitMs });
  // A failed statement leaves the transaction open in state E: still a holder.
  const holding = !step.timedOut && (step.txStatus === 'T' || step.txStatus === 'E');
  return {
    session,
    pid: holding ? step.pid : null,
    waited: step.timedOut,
    step,
    async release(releaseTag = releaseTagFor(tag)) {
      if (holding && session.alive) await session.run(releaseTag, step.txStatus === 'E' ? 'ROLLBACK' : 'COMMIT');
    },
  };
}

async function takeWithStatement(scn: Scenario, session: Session, tag: string, opts: TakeOptions): Promise<Hold> {
  const releaseBy = opts.releaseBy ?? 'cancel';
  const stepMs = scn.ctx.bounds.stepMs;
  // A cancelled holder must still end on its own if the cancel goes astray.
  const holdMs = releaseBy === 'wait' ? (opts.holdMs ?? 500) : Math.max(1000, stepMs - 500);
  const long = startLongStatement(
    session,
    tag,
    ['SELECT pg_backend_pid() AS pid', ...(opts.statements ?? [])],
    holdMs,
    holdMs + stepMs,
  );
  const running = long.done;
  const waitMs = opts.waitMs ?? scn.waitMs;
  const pid = await within(long.pid, waitMs, 'waited' as const);
  if (pid === 'waited') {
    session.abandonWait(`no backend within ${waitMs} ms`);
    const step = await running;
    return { session, pid: null, waited: true, step, release: async () => undefined };
  }
  const hold: Hold = {
    session,
    pid,
    waited: false,
    step: null,
    async release() {
      const key = session.cancelKey;
      if (releaseBy === 'cancel' && key) await sendCancelRequest(scn.ctx.target, key.processId, key.secretKey, stepMs);
      hold.step = await running;
    },
  };
  return hold;
}

/** Releases holds one after another (order matters to LIFO poolers), ignoring nulls. */
export async function releaseAll(holds: Array<Hold | null | undefined>): Promise<void> {
  for (const h of holds) if (h) await h.release();
}

/**
 * Releases holds and disconnects their sessions. Under session pooling a released holder
 * still owns its backend until it disconnects, so holders that are no longer needed must go.
 */
export async function dismiss(holds: Array<Hold | null | undefined>): Promise<void> {
  for (const h of holds) {
    if (!h) continue;
    await h.release();
    await h.session.close();
  }
}
