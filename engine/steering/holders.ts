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
import { FLUSH_PID, startLongStatement } from './long-statement.js';
import { within } from '../record/time.js';
import { releaseTagFor } from '../record/tags.js';
import type { Session } from '../session/session.js';
import type { Discovery, StepRecord } from '../types.js';
import type { Scenario } from './scenario.js';
import { valueOf } from '../record/step-reading.js';
import { transactionName } from './login-name.js';
import { sparesAllowed } from './spare-session.js';

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
  // One message only where it may wait in a pooler's queue (QUEUED_MESSAGE_MAX_BYTES): a
  // larger one is a transaction's take, which sends its statements once it holds the backend.
  const oneMessage = opts.oneMessage === true && oneMessageTakeBytes(opts.statements ?? []) <= QUEUED_MESSAGE_MAX_BYTES;
  return scn.discovery.holderStrategy === 'statement' || oneMessage
    ? takeWithStatement(scn, session, tag, opts)
    : takeWithTransaction(scn, session, tag, opts);
}

/**
 * The largest Query message a take may leave waiting in a pooler's queue, in bytes (type byte,
 * length, SQL and its terminating zero). PgBouncer keeps a waiting client's packet in its
 * packet buffer (pkt_buf, 4096 bytes by default); a packet that fills the buffer stops it
 * reading that client until a server is free. A take that gives up waiting destroys its socket
 * (Session: a timed-out session is never reused), and PgBouncer then sees the client go only
 * once it has handed that packet a server: half a query is on the server connection, so it
 * closes it ("client disconnect while server was not ready"). Every queued take that gave up
 * cost the pool a server login, or for good behind a link that refuses new ones: that was
 * test/faults/shrinking-pool's pool of 0 once the sweep's per-check visit grew past 4 KB with
 * lock_timeout's own marker (measured on PgBouncer 1.18 and 1.25.2: 4095 bytes are seen
 * leaving, 4096 are not; test/safety/queued-take.test.ts).
 */
export const QUEUED_MESSAGE_MAX_BYTES = 4095;

/**
 * Bytes of a one-message take (TakeOptions.oneMessage) of `statements`: the pid, the
 * statements, the pid's flush and the sleep, whose own text is a few bytes (64 covers it).
 */
export function oneMessageTakeBytes(statements: readonly string[]): number {
  return queryMessageBytes(['SELECT pg_backend_pid() AS pid', ...statements, FLUSH_PID].join('; ')) + 64;
}

/** Bytes of a simple-protocol Query message carrying `sql`: type, int32 length, text, zero. */
export function queryMessageBytes(sql: string): number {
  return 1 + 4 + Buffer.byteLength(sql) + 1;
}

async function takeWithTransaction(scn: Scenario, session: Session, tag: string, opts: TakeOptions): Promise<Hold> {
  const statements = opts.statements ?? [];
  // Named with SET LOCAL where no name went at login (login-name.ts): it ends with the transaction.
  const named = ['BEGIN', ...transactionName(scn)];
  const whole = [...named, 'SELECT pg_backend_pid() AS pid', ...statements].join('; ');
  const boundMs = opts.waitMs ?? scn.waitMs;
  if (statements.length === 0 || queryMessageBytes(whole) <= QUEUED_MESSAGE_MAX_BYTES) {
    const step = await session.run(tag, whole, { boundMs });
    // A failed statement leaves the transaction open in state E: still a holder.
    const holding = !step.timedOut && (step.txStatus === 'T' || step.txStatus === 'E');
    return transactionHold(session, tag, holding ? step.pid : null, step.timedOut, holding, step);
  }
  // Too large to wait in a queue (QUEUED_MESSAGE_MAX_BYTES): only BEGIN waits for a backend,
  // and the statements follow once it is held, at one round trip more. Both steps carry the
  // take's tag, so a queue still reads as a take unanswered within its bound; the first names
  // its pid `given_pid`, so that the landing every judge and visit finds (a take step with a
  // pid) is the second, which reads the pid again beside the statements' columns.
  const queued = await session.run(tag, [...named, 'SELECT pg_backend_pid() AS given_pid'].join('; '), { boundMs });
  const given = valueOf(queued, 'given_pid');
  if (queued.timedOut || queued.txStatus !== 'T' || typeof given !== 'number')
    return transactionHold(session, tag, null, queued.timedOut, queued.txStatus === 'T', queued);
  const step = await session.run(tag, ['SELECT pg_backend_pid() AS pid', ...statements].join('; '));
  return transactionHold(session, tag, given, false, step.txStatus === 'T' || step.txStatus === 'E', step);
}

function transactionHold(
  session: Session,
  tag: string,
  pid: number | null,
  waited: boolean,
  holding: boolean,
  step: StepRecord,
): Hold {
  return {
    session,
    pid,
    waited,
    step,
    async release(releaseTag = releaseTagFor(tag)) {
      if (holding && session.alive) await session.run(releaseTag, step.txStatus === 'E' ? 'ROLLBACK' : 'COMMIT');
    },
  };
}

/**
 * A statement-strategy holder cannot be split as a transaction's take is (its statements must
 * run inside the one statement that holds the backend): above QUEUED_MESSAGE_MAX_BYTES, a
 * queued one that gives up still costs PgBouncer's statement mode a server connection.
 */
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
 * A helper session the scenario is done with: closed now where a connected client keeps what
 * the steering counts on (a backend under session pooling and direct, a child of pgpool-II, a
 * slot under a client limit: where spares are not allowed, spare-session.ts), so the check's
 * next client is not queued behind it. Elsewhere an idle client holds nothing, and closeAll
 * ends it with the rest, without the scenario waiting for its goodbye.
 */
export async function letGo(scn: Scenario, session: Session): Promise<void> {
  if (!sparesAllowed(scn.ctx)) await session.close();
}

/** Holds the scenario is done with: released, and, where a connected client keeps its backend ({@link letGo}), disconnected. */
export async function letGoAll(scn: Scenario, holds: Array<Hold | null | undefined>): Promise<void> {
  if (sparesAllowed(scn.ctx)) await releaseAll(holds);
  else await dismiss(holds);
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
