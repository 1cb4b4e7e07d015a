/**
 * Many clients at once: the shared step of the capacity checks. Every client starts in the
 * same tick, connects through the target, does its work, and then either leaves at once (so a
 * session pooler or pgpool-II can hand its backend to the next client) or stays connected
 * until the caller is done (so clients really are connected together).
 *
 * A client that cannot connect is recorded as a `<tag>.connect` step - with the server's
 * SQLSTATE when it sent one (53300 "too many clients") - and is not retried: a refusal is
 * what the capacity checks are looking for.
 */
import { setMaxListeners } from 'node:events';
import { PooltestError } from '../record/errors.js';
import type { Session } from '../session/session.js';
import { openWhenAdmitted } from './admitted.js';
import type { Scenario } from './scenario.js';

export interface CrowdOptions {
  /** How many clients. */
  count: number;
  /** Session labels are `${prefix}1` ... `${prefix}${count}`. */
  prefix: string;
  /** Tag of the connection step recorded for a client that could not connect. */
  connectTag: string;
  /** Bound on each connection (a pooler may hold new connections in its listen queue). */
  connectMs: number;
  /**
   * Give up on the logins still in flight once this long has passed since the crowd started
   * or since the latest client settled (connected or was refused), whichever is later; they
   * are recorded as waited, as if their own bound had run out. For a check that reads a login
   * held past this bound as queued (capacity/multiplexing): a bound per login, counted from
   * the start, ran out for 19 of 20 clients against direct PostgreSQL on a busy machine,
   * where the logins were only slow (issue 21). Counted from the latest one, logins that keep
   * coming are waited for (up to `connectMs` each), and a pooler that holds the rest still
   * ends the wait this long after it admitted its last.
   */
  loginStallMs?: number;
  /** What each connected client does; its queries record themselves. */
  work(session: Session, index: number): Promise<void>;
  /** Keep clients connected after their work; `Scenario.closeAll` ends them. */
  stayConnected?: boolean;
  /**
   * Hold every client's work until all have connected (or failed), so that slow logins do not
   * look like waiting for a backend. A pooler that queues logins (pgpool-II) never lets them
   * all connect: once this long has passed since the last client connected or failed, the ones
   * that did are released. Counted from the last one, not from the start: on a busy machine
   * logins are slow but keep coming, and a bound from the start would release the crowd
   * before it had gathered (issue 21). Before any client has settled, the connection bounds
   * end the wait.
   */
  startTogetherMs?: number;
  /**
   * Clients 1 to `admitFirst` keep logging in while the target refuses them at capacity (bounded
   * by `connectMs`; steering/admitted.ts) before the others start. For a pooler that refuses
   * rather than queues (discovery's clientLimit), with this many set to its limit: the slots the
   * run's previous clients had may not be free yet when the crowd begins (pgpool-II frees a
   * child only once it has reset the backend of the client that left), and a crowd refused
   * whole because of them says nothing about the pooler. What the crowd asks, what becomes of
   * the clients beyond the limit, is unchanged; a client still refused at the bound is recorded
   * as any other.
   */
  admitFirst?: number;
}

/** Runs the crowd; resolves with the clients that connected (in index order, null for the others). */
export async function crowd(scn: Scenario, opts: CrowdOptions): Promise<Array<Session | null>> {
  // The crowd must be all this run has connected to the target: idle logins made ahead of
  // need would count against its client limit (max_client_conn) and turn waits into refusals.
  await scn.ownClientsOnly();
  const start = opts.startTogetherMs === undefined ? null : gathering(opts.count, opts.startTogetherMs);
  const first = Math.min(opts.admitFirst ?? 0, opts.count);
  const admitted = await Promise.all(
    Array.from({ length: first }, (_, i) => admit(scn, `${opts.prefix}${i + 1}`, opts.connectTag, opts.connectMs)),
  );
  const stall = opts.loginStallMs === undefined ? null : loginWatch(opts.count, opts.loginStallMs);
  const clients = Array.from({ length: opts.count }, async (_, i) => {
    const label = `${opts.prefix}${i + 1}`;
    // One still refused at the bound logs in once more as the rest do, and that refusal is recorded.
    const early = admitted[i];
    const session =
      early === undefined || early === 'refused'
        ? await openOrRecord(scn, label, opts.connectTag, opts.connectMs, stall?.signal)
        : early;
    stall?.settled();
    start?.settled();
    if (!session) return null;
    await start?.released;
    await opts.work(session, i);
    if (!opts.stayConnected) await session.close();
    return session;
  });
  return Promise.all(clients);
}

/**
 * Resolves `released` once `count` clients have settled, or once `idleMs` has passed since the
 * latest one settled without another following.
 */
function gathering(count: number, idleMs: number): { settled(): void; released: Promise<void> } {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const watch = settleWatch(count, idleMs, { fromStart: false, onIdle: release, onAll: release });
  return { released, settled: watch.settled };
}

/**
 * Aborts `signal` once `stallMs` has passed without a client settling, counted from now and
 * then from each one that settles; stops watching once all `count` have.
 */
function loginWatch(count: number, stallMs: number): { signal: AbortSignal; settled(): void } {
  const controller = new AbortController();
  // Every login of the crowd listens at once (multiplexing's 20): not a leak, so no warning.
  setMaxListeners(count + 1, controller.signal);
  const giveUp = (): void =>
    controller.abort(
      new PooltestError(
        'STEP_TIMEOUT',
        `no login of the crowd completed for ${stallMs} ms since the one before (or the start): given up as held by the target`,
      ),
    );
  const watch = settleWatch(count, stallMs, { fromStart: true, onIdle: giveUp, onAll: () => undefined });
  return { signal: controller.signal, settled: watch.settled };
}

/**
 * The timer both share: `onIdle` once `idleMs` passes with no client settling (counted from the
 * latest one that did, and from now too when `fromStart`), `onAll` once all `count` settled
 * first. Each fires at most once, and nothing more after either; the timer is unref'd.
 */
function settleWatch(
  count: number,
  idleMs: number,
  on: { fromStart: boolean; onIdle(): void; onAll(): void },
): { settled(): void } {
  let n = 0;
  let over = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    timer = setTimeout(() => {
      over = true;
      on.onIdle();
    }, idleMs);
    timer.unref();
  };
  if (on.fromStart) arm();
  return {
    settled() {
      clearTimeout(timer);
      if (over) return;
      if (++n < count) return arm();
      over = true;
      on.onAll();
    },
  };
}

/**
 * A login retried while the target refuses it at capacity (steering/admitted.ts): the session,
 * `'refused'` when it was refused until `connectMs` passed, or null for any other failure,
 * recorded under `tag` as `tryOpen` records one (a malformed answer open() recorded itself).
 */
async function admit(
  scn: Scenario,
  label: string,
  tag: string,
  connectMs: number,
): Promise<Session | null | 'refused'> {
  const startMs = scn.recorder.now();
  try {
    return await openWhenAdmitted(scn, label, connectMs);
  } catch (err) {
    if (err instanceof PooltestError && err.code === 'TARGET_FULL') return 'refused';
    scn.noteConnectFailure(label, tag, startMs, err);
    return null;
  }
}

/** `tryOpen`, except that a refused connection is also only recorded, never thrown. */
async function openOrRecord(
  scn: Scenario,
  label: string,
  tag: string,
  connectMs: number,
  giveUp: AbortSignal | undefined,
): Promise<Session | null> {
  try {
    return await scn.tryOpen(label, tag, connectMs, giveUp);
  } catch {
    // tryOpen recorded the failure as a step before throwing it.
    return null;
  }
}
