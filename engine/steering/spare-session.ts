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
 * A spare has sent no query: no backend has seen it, no step records it, and it is closed
 * with the scenario's sessions. A spare whose login failed is dropped, and the `open()` that
 * wanted it logs in afresh, so failures surface with their usual codes and timing.
 */
import { classifyConnectError } from '../session/connect.js';
import type { Session } from '../session/session.js';
import { within } from '../time.js';
import type { RunContext } from './scenario.js';

/** Whether spares are safe for this target (see the file comment). */
export function sparesAllowed(ctx: RunContext): boolean {
  return ctx.discovery.mode === 'transaction' || ctx.discovery.mode === 'statement';
}

export class Spares {
  private pending: Promise<Session | null> | null = null;
  private stopped = false;

  /** `login` opens a session through the target with the run's usual bounds. */
  constructor(private readonly ctx: RunContext, private readonly login: () => Promise<Session>) {}

  /** Starts a login in the background unless one is in flight. */
  prepare(): void {
    if (this.stopped || this.pending) return;
    // A failed spare is simply no spare: the open() that wanted it logs in itself.
    this.pending = this.login().catch(() => null);
  }

  /**
   * The spare, labelled `label`, or null when there is none to give (none prepared, its login
   * failed, it died while waiting). Waits at most `connectMs` for a login in flight: past that
   * the caller's own bound has passed, which reads as a connection that did not complete.
   */
  async take(label: string, connectMs: number): Promise<Session | null> {
    const pending = this.pending;
    if (!pending) return null;
    this.pending = null;
    const got = await within(pending, connectMs, 'late' as const);
    if (got === 'late') {
      void pending.then((s) => s?.close());
      this.prepare();
      throw classifyConnectError(new Error('timeout expired'), this.ctx.target, connectMs);
    }
    if (!got || !got.alive) {
      await got?.close();
      return null;
    }
    got.relabel(label);
    this.prepare();
    return got;
  }

  /** No more spares; the one in flight is closed once its login ends (bounded by the connect bound). */
  async stop(): Promise<void> {
    this.stopped = true;
    const pending = this.pending;
    this.pending = null;
    if (!pending) return;
    // Usually connected long ago; a login still hanging (a target gone down) is closed when it
    // gives up, without holding up the check.
    const s = await within(pending, 50, 'late' as const);
    if (s === 'late') void pending.then((x) => x?.close());
    else await s?.close();
  }
}
