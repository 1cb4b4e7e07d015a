/**
 * A session the engine keeps open between checks for its own read-only questions (is another
 * run active? which backends are still alive?), instead of opening one per question: a login
 * costs several round trips (startup, SCRAM's two exchanges, parameter status), which at 20 ms
 * per round trip is most of what such a question costs.
 *
 * Kept only where an idle client holds nothing: over --direct (Postgres gives it a backend of
 * its own, outside the pool), or through a target whose backends are shared between clients
 * (transaction or statement pooling, or Postgres itself). Under session pooling a connected
 * client owns a backend even when idle, which would take one of the pool's few backends away
 * from the checks' steering: there every question gets a fresh session, closed at once.
 *
 * The session closes itself after {@link IDLE_CLOSE_MS} without use (a Vitest worker that
 * outlives the run, a vendor's isolated test files), and a session that died (a pooler
 * restart in a fault test) is replaced on the next question.
 */
import { Recorder } from '../session/recorder.js';
import { applicationNameFor, Session } from '../session/session.js';
import { loginName } from './login-name.js';
import type { LivePart, RunContext, RunState } from '../context/run-state.js';

/** A session the engine keeps open for its own questions. */
interface Kept {
  session: Promise<Session>;
  timer: NodeJS.Timeout | null;
  /** Questions in flight: the idle timer only runs while nobody uses the session. */
  users: number;
}

/** The run's kept engine sessions in this process, per endpoint: a part of its state (run-state.ts). */
const KEPT: LivePart<Map<string, Kept>> = { name: 'kept engine sessions', make: () => new Map() };

/** Long enough to span a check and the tidy-up after it; short enough not to linger after the run. */
const IDLE_CLOSE_MS = 3_000;

/** Where the engine's questions go: `direct` when given, else the target. */
function endpointOf(ctx: RunContext): 'direct' | 'target' {
  return ctx.direct ? 'direct' : 'target';
}

/** Whether an idle client at that endpoint holds no backend of the pool (see the file comment). */
export function keepable(ctx: RunContext): boolean {
  if (endpointOf(ctx) === 'direct') return true;
  const d = ctx.discovery;
  return d.mode === 'transaction' || d.mode === 'statement' || d.mode === 'direct';
}

function open(ctx: RunContext, label: string, connectMs: number): Promise<Session> {
  const direct = endpointOf(ctx) === 'direct' && ctx.direct ? ctx.direct : null;
  // Over --direct the kept session is a server connection that lives through the checks: a
  // name of its own keeps it out of counts of the run's server connections
  // (capacity/multiplexing), and still starts with the run's name, so other runs and the sweep
  // know it as this run's. Through the target it must carry the run's exact name, which
  // PgBouncer sets on whatever backend serves it (the sweep would find any other name there).
  const applicationName = direct ? `${applicationNameFor(ctx.runId)}-engine` : loginName(ctx);
  return Session.open(label, direct ?? ctx.target, new Recorder(), {
    connectMs,
    stepMs: ctx.bounds.stepMs,
    applicationName,
    tlsFirst: ctx.state.tlsFirst,
  });
}

/**
 * Runs `use` on the run's kept session (opened on first use), or on a fresh session closed
 * right after when keeping one is not safe. A session that is dead before or after `use` is
 * dropped; `use` sees a fresh one the next time. Connection failures reject, as `open` does.
 */
export async function withKeptSession<T>(
  ctx: RunContext,
  label: string,
  connectMs: number,
  use: (s: Session) => Promise<T>,
): Promise<T> {
  if (!keepable(ctx)) {
    const s = await open(ctx, label, connectMs);
    try {
      return await use(s);
    } finally {
      await s.close();
    }
  }
  // Kept in the run's state (run-state.ts): the next question of the run in this process finds it.
  const kept = ctx.state.part(KEPT);
  const key = `${endpointOf(ctx)}|${ctx.target.host}:${ctx.target.port}`;
  let entry = kept.get(key);
  if (
    entry &&
    !(await entry.session.then(
      (s) => s.alive,
      () => false,
    ))
  ) {
    forget(kept, key, entry);
    entry = undefined;
  }
  if (!entry) {
    entry = { session: open(ctx, label, connectMs), timer: null, users: 0 };
    kept.set(key, entry);
  }
  const e = entry;
  if (e.timer) clearTimeout(e.timer);
  e.timer = null;
  e.users++;
  try {
    return await use(await e.session);
  } catch (err) {
    forget(kept, key, e);
    throw err;
  } finally {
    e.users--;
    if (kept.get(key) === e && e.users === 0) {
      e.timer = setTimeout(() => forget(kept, key, e), IDLE_CLOSE_MS);
      e.timer.unref();
    }
  }
}

/** Closes a kept session (politely, bounded) and forgets it. */
function forget(kept: Map<string, Kept>, key: string, e: Kept): void {
  if (kept.get(key) === e) kept.delete(key);
  if (e.timer) clearTimeout(e.timer);
  e.timer = null;
  void e.session.then(
    (s) => s.close(),
    () => undefined,
  );
}

/**
 * Closes the kept sessions of the run whose state is `of` now: all of them, or (`'target'`)
 * only those through the target, which count as its clients; over --direct a question may be in
 * flight alongside a check. Another run in the same process keeps its own.
 */
export async function closeKeptSessions(which: 'all' | 'target', of: RunState): Promise<void> {
  const kept = of.part(KEPT);
  const all = [...kept.entries()].filter(([key]) => which === 'all' || key.startsWith('target|'));
  for (const [key] of all) kept.delete(key);
  await Promise.all(
    all.map(async ([, e]) => {
      if (e.timer) clearTimeout(e.timer);
      await e.session.then(
        (s) => s.close(),
        () => undefined,
      );
    }),
  );
}
