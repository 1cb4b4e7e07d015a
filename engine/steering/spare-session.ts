/**
 * Logging in ahead of need. A check opens its sessions one after another (A, then candidates
 * O1, O2, then a notifier...), and each login costs several round trips (startup, SCRAM's two
 * exchanges, parameter status): at 20 ms per round trip that is most of a simple check's time.
 * A spare keeps one login in flight, so the next `open()` usually finds a connected session
 * waiting, and the next spare starts at once.
 *
 * Only where a connected, idle client holds nothing the checks steer: transaction and
 * statement pooling, where a client gets a backend only for its transaction or statement.
 * Under session pooling (and pgpool-II) a connected client owns a backend or a child process,
 * and direct Postgres forks a backend per login: there a spare would take one of the few
 * backends the steering counts on, so no spares.
 *
 * The spares are shared by every scenario of the run in this process (a check, the tidy-up
 * after it, the next check), so the first session of a check and the tidy-up's visitors find
 * logins made while the previous scenario ran. A spare has sent no query: no backend has seen
 * it and no step records it until a scenario adopts it. A spare whose login failed is dropped,
 * and the `open()` that wanted it logs in afresh, so failures surface with their usual codes
 * and timing. Unused for {@link IDLE_CLOSE_MS}, the spares are closed (the run is over, or
 * between runs), and a Vitest worker that ends closes their sockets with it.
 */
import { classifyConnectError } from '../session/connect.js';
import { Recorder } from '../session/recorder.js';
import { Session } from '../session/session.js';
import { loginName } from './login-name.js';
import type { LivePart, RunContext, RunState } from '../context/run-state.js';
import { within } from '../record/time.js';

/**
 * The run's logins ahead of need in this process, per endpoint and login: a part of its state
 * (run-state.ts), shared by every scenario of the run here.
 */
export const SPARES: LivePart<Map<string, Spares>> = { name: 'logins ahead of need', make: () => new Map() };

/** Longer than the gap between two scenarios' logins; short enough not to linger after a run. */
const IDLE_CLOSE_MS = 3_000;

/** Whether spares are safe for this target (see the file comment). */
export function sparesAllowed(ctx: RunContext): boolean {
  // A pooler that limits its clients counts every idle spare against that limit: no spares
  // where discovery met the limit, nor once a run has been refused at capacity.
  if (ctx.discovery.clientLimit || ctx.discovery.spareRoomRefused || ctx.state.sparesRefused) return false;
  return ctx.discovery.mode === 'transaction' || ctx.discovery.mode === 'statement';
}

/**
 * A client of the run was refused at capacity (max_client_conn and the like): this process
 * keeps no more logins ahead for the run, and closes those it has, so that the run's own idle
 * spares never take the slots its checks need.
 */
export async function noSparesAfterRefusal(ctx: Pick<RunContext, 'state'>): Promise<void> {
  const { state } = ctx;
  if (state.sparesRefused) return;
  state.sparesRefused = true;
  await Promise.all([...state.part(SPARES).values()].map((s) => s.close()));
}

/**
 * How many logins to keep ahead: two for a check's next sessions, and one per backend for
 * the tidy-up's visitors, who all log in at once.
 */
export function depthFor(ctx: Pick<RunContext, 'discovery'>): number {
  return 2 + Math.min(ctx.discovery.poolSize ?? 2, 8);
}

export class Spares {
  /** Logins in flight or done, oldest first. */
  private pending: Array<Promise<Session | null>> = [];
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  private constructor(
    private readonly ctx: RunContext,
    private readonly state: RunState,
    private readonly key: string,
    private readonly depth: number,
  ) {}

  /** The run's spares in this process, or null where spares are not safe. */
  static forRun(ctx: RunContext): Spares | null {
    if (!sparesAllowed(ctx)) return null;
    // Kept in the run's state (run-state.ts), so every scenario of the run in this process shares them.
    const { state } = ctx;
    const key = `${ctx.target.host}:${ctx.target.port}|${ctx.target.database}|${ctx.target.user}`;
    let spares = state.part(SPARES).get(key);
    if (!spares) {
      spares = new Spares(ctx, state, key, depthFor(ctx));
      state.part(SPARES).set(key, spares);
    }
    spares.prepare();
    return spares;
  }

  /** Starts logins in the background until `depth` are in flight; restarts the idle clock. */
  private prepare(): void {
    if (this.closed) return;
    // A failed spare is simply no spare: the open() that wanted it logs in itself.
    while (this.pending.length < this.depth) this.pending.push(this.login().catch(() => null));
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.close(), IDLE_CLOSE_MS);
    this.timer.unref();
  }

  private login(): Promise<Session> {
    const { ctx } = this;
    return Session.open('spare', ctx.target, new Recorder(), {
      connectMs: ctx.bounds.connectMs,
      stepMs: ctx.bounds.stepMs,
      applicationName: loginName(ctx),
      tlsFirst: this.state.tlsFirst,
    });
  }

  /**
   * A spare for the scenario that records into `recorder`, labelled `label`, or null when there
   * is none to give (its login failed, it died while waiting). Waits at most `connectMs` for a
   * login in flight: past that the caller's own bound has passed, which reads as a connection
   * that did not complete.
   */
  async take(
    label: string,
    connectMs: number,
    recorder: Recorder,
    signal: AbortSignal | undefined,
  ): Promise<Session | null> {
    const pending = this.pending.shift();
    this.prepare();
    if (!pending) return null;
    const got = await within(pending, connectMs, 'late' as const);
    if (got === 'late') {
      void pending.then((s) => s?.close());
      throw classifyConnectError(new Error('timeout expired'), this.ctx.target, connectMs);
    }
    if (!got || !got.alive) {
      await got?.close();
      return null;
    }
    got.adopt(label, recorder, signal);
    return got;
  }

  /** Closes every spare (those still logging in once their login ends) and forgets them. */
  async close(): Promise<void> {
    this.closed = true;
    const ofRun = this.state.part(SPARES);
    if (ofRun.get(this.key) === this) ofRun.delete(this.key);
    if (this.timer) clearTimeout(this.timer);
    const all = this.pending.splice(0);
    await Promise.all(
      all.map(async (pending) => {
        // Usually connected long ago; a login still hanging (a target gone down) is closed when
        // it gives up, without holding anyone up.
        const s = await within(pending, 50, 'late' as const);
        if (s === 'late') void pending.then((x) => x?.close());
        else await s?.close();
      }),
    );
  }
}

/** Closes the spares of the run whose state is `of` now. */
export async function closeSpares(of: RunState): Promise<void> {
  await Promise.all([...of.part(SPARES).values()].map((s) => s.close()));
}
