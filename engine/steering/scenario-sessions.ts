/**
 * The sessions of a scenario (Scenario, scenario.ts, extends this): how they log in (fresh,
 * from the run's logins ahead of need, or from this scenario's own logins ahead), which of them
 * go to the direct server, and closing every one of them, whatever happened. What the scenario
 * records and concludes is scenario.ts's.
 */
import type { RunContext } from '../context/run-state.js';
import { isCapacityRefusal } from '../record/capacity-refusal.js';
import type { Discovery } from '../record/discovery-facts.js';
import { PooltestError } from '../record/errors.js';
import type { ErrorRecord, StepRecord } from '../record/step-record.js';
import { connectTag } from '../record/tags.js';
import { Recorder } from '../session/recorder.js';
import { Session } from '../session/session.js';
import { WireSession } from '../session/wire-session.js';
import { loginName } from './login-name.js';
import type { Target } from '../target/target.js';
import { closeKeptSessions } from './kept-session.js';
import { closeSpares, noSparesAfterRefusal, Spares } from './spare-session.js';

/** What a note (a recorded step that is not a query) carries besides its label, tag and text. */
export interface NoteDetail {
  startMs?: number;
  facts?: Record<string, unknown>;
  error?: string | ErrorRecord;
  timedOut?: boolean;
}

export abstract class ScenarioSessions {
  readonly recorder = new Recorder();
  readonly ctx: RunContext;
  private readonly sessions: Session[] = [];
  /** Wire-level sessions ({@link openWire}), closed with the rest. */
  private readonly wires: WireSession[] = [];
  /** Aborted when the run is interrupted: sessions stop at once (see SessionBounds.signal). */
  readonly signal: AbortSignal | undefined;
  /** The run's logins ahead of need through the target, when {@link useSpares} turned them on. */
  private spares: Spares | null = null;
  /**
   * The startup application_name of the sessions it opens: the run's name, so that the sweep
   * and other runs can tell them apart. '' sends none, as many drivers do (node-postgres
   * among them): some poolers treat such a client differently (see sweep.ts, names).
   */
  applicationName: string;
  /**
   * Where no name goes at login (login-name.ts), holders' transactions carry the run's name
   * with SET LOCAL. Off for the sweep's nameless visitors, which look for the name itself.
   */
  namesTransactions = true;
  private noSpares = false;
  /** {@link ownClientsOnly} ended the run's spares: every client it counted was its own. */
  get countsOwnClientsOnly(): boolean {
    return this.noSpares;
  }
  /** {@link useSparesFromFirstOpen} was called: the first open() through the target turns spares on. */
  private sparesOnOpen = false;
  /** How many times closeAll has run: a login that began before the latest one is closed as it ends. */
  private closings = 0;
  /** Logins this scenario started ahead of its own need ({@link loginAhead}), with their name. */
  private ahead: { name: string; logins: Array<Promise<Session | null>> } | null = null;
  /** Labels of its sessions to the direct server (--direct), see {@link markDirect}. */
  protected readonly directLabels = new Set<string>();
  constructor(ctx: RunContext, signal?: AbortSignal) {
    this.ctx = ctx;
    this.signal = signal;
    this.applicationName = loginName(ctx);
  }

  /**
   * Says that the session `label` is connected to the direct server, not through the target
   * ({@link open} with `to: 'direct'` says so itself; a check that opens one with Session.open
   * calls this). Its backends are no pooled backend: the tidy-up after the check does not go
   * looking for them through the pooler (engine/execute/execute.ts), where it would never find one.
   */
  markDirect(label: string): void {
    this.directLabels.add(label);
  }

  get interrupted(): boolean {
    return this.signal?.aborted === true;
  }

  /**
   * Takes sessions through the target from the run's logins made ahead of need from now on
   * (steering/spare-session.ts), where the target's pooling makes that safe. A check's scenario,
   * the tidy-up after it, the recount after a destructive one and the sweep turn it on.
   */
  useSpares(known?: Discovery): void {
    // `known`: what an earlier discovery learned of the target, for a scenario whose own
    // discovery is still blank (the recount after a destructive check, engine/discovery/pool-watch.ts).
    if (!this.noSpares) this.spares ??= Spares.forRun(known ? { ...this.ctx, discovery: known } : this.ctx);
  }

  /**
   * As {@link useSpares}, from this scenario's first open() through the target on. A check's
   * scenario starts so: a crowd (capacity checks) ends the spares before it opens anything
   * (ownClientsOnly), and spares started at its outset would only be logging in then, adding
   * to the crowd's clients at a distance or holding it up while they are closed.
   */
  useSparesFromFirstOpen(): void {
    this.sparesOnOpen = true;
  }

  /**
   * Ends the run's logins ahead of need and its kept engine session in this process, and takes
   * no more spares: from now on every client of this run the target sees is one this scenario
   * opens. Capacity checks count clients and their refusals, which idle spares would skew.
   */
  async ownClientsOnly(): Promise<void> {
    this.spares = null;
    this.noSpares = true;
    // This run's only: another run in the same process (a library user's) keeps its own.
    await Promise.all([closeSpares(this.ctx.state), closeKeptSessions('target', this.ctx.state)]);
  }

  /**
   * Starts `count` logins through the target now, with `name` (default: the scenario's
   * application_name as it is at this moment); the next `open()`s through the target with that name take them before
   * logging in themselves. For a scenario that knows it will need clients later (the sweep's
   * nameless visitors) on a target where an idle login holds nothing (the caller checks
   * `sparesAllowed`). A failed login ahead is simply none: that open() logs in afresh, so
   * failures surface with their usual codes. `closeAll` closes the ones never taken.
   */
  loginAhead(count: number, name = this.applicationName): void {
    const logins = Array.from({ length: count }, () =>
      Session.open('ahead', this.ctx.target, new Recorder(), {
        connectMs: this.ctx.bounds.connectMs,
        stepMs: this.ctx.bounds.stepMs,
        applicationName: name,
        tlsFirst: this.ctx.state.tlsFirst,
      }).catch(() => null),
    );
    this.ahead = { name, logins: [...(this.ahead?.name === name ? this.ahead.logins : []), ...logins] };
  }

  /** A login made ahead with `name`, adopted as `label`, or null when there is none (or it died). */
  private async takeAhead(label: string, name: string): Promise<Session | null> {
    if (this.ahead?.name !== name || this.interrupted) return null;
    const pending = this.ahead.logins.shift();
    const got = pending ? await pending : null;
    if (!got?.alive) {
      await got?.close();
      return null;
    }
    got.adopt(label, this.recorder, this.signal);
    return got;
  }

  /** Opens a session through the target. Connection failures are thrown (the check becomes inconclusive). */
  async open(
    label: string,
    opts: {
      connectMs?: number;
      to?: 'target' | 'direct';
      applicationName?: string;
      giveUp?: AbortSignal;
      /**
       * Not stopped by the run's interruption (bounded by its connect and step bounds like any
       * session): for dropping what outlives every backend, which an interrupted run must
       * still do. A fresh login, never a spare (those stop with the run).
       */
      uninterruptible?: boolean;
    } = {},
  ): Promise<Session> {
    const target = opts.to === 'direct' ? this.ctx.direct : this.ctx.target;
    if (!target) throw new PooltestError('BAD_ARGUMENTS', 'this step needs --direct');
    if (opts.to === 'direct') this.markDirect(label);
    const connectMs = opts.connectMs ?? this.ctx.bounds.connectMs;
    const name = opts.applicationName ?? this.applicationName;
    const closedBefore = this.closings;
    if (opts.uninterruptible) {
      return this.keep(await this.login(label, target, connectMs, name, opts.giveUp, false), closedBefore);
    }
    if (this.sparesOnOpen && opts.to !== 'direct') this.useSpares();
    // Spares log in with the run's own name: not for a session that must send another (the
    // state scenario's nameless observers).
    const spare =
      opts.to !== 'direct' && name === loginName(this.ctx) && this.spares && !this.interrupted
        ? await this.spares.take(label, connectMs, this.recorder, this.signal)
        : null;
    const early = spare ?? (opts.to === 'direct' ? null : await this.takeAhead(label, name));
    const session = early ?? (await this.login(label, target, connectMs, name, opts.giveUp));
    return this.keep(session, closedBefore);
  }

  /**
   * Adds a session whose login just completed to those closeAll closes. A login still under
   * way when closeAll ran (a scenario that threw while a sibling was logging in) would
   * otherwise stay connected, idle and unowned: it is closed at once instead, and returned
   * closed (its steps fail as on any closed session).
   */
  private async keep(session: Session, closedBefore: number): Promise<Session> {
    if (this.closings !== closedBefore) await session.close();
    else this.sessions.push(session);
    return session;
  }

  private login(
    label: string,
    target: Target,
    connectMs: number,
    applicationName = this.applicationName,
    giveUp?: AbortSignal,
    interruptible = true,
  ): Promise<Session> {
    const startMs = this.recorder.now();
    return Session.open(label, target, this.recorder, {
      connectMs,
      stepMs: this.ctx.bounds.stepMs,
      applicationName,
      tlsFirst: this.ctx.state.tlsFirst,
      ...(this.signal && interruptible ? { signal: this.signal } : {}),
      ...(giveUp ? { giveUp } : {}),
    }).catch(async (err: unknown) => {
      // A malformed startup answer is evidence about the target: recorded, so judges and the engine see it.
      if (err instanceof PooltestError && err.code === 'PROTOCOL_VIOLATION')
        this.note(label, connectTag(label), '(connect)', { startMs, error: { code: err.code, message: err.message } });
      // Refused at capacity: the run's own spares must not keep taking the slots its checks need.
      if (isCapacityRefusal(connectError(err))) {
        this.spares = null;
        await noSparesAfterRefusal(this.ctx);
      }
      throw err;
    });
  }

  /**
   * Opens a wire-level session through the target (session/wire-session.ts: pooltest's own
   * messages on a raw socket, recorded in this scenario's record like a Session's steps). Always
   * a fresh login with the scenario's application_name; failures are thrown with their codes,
   * and a malformed login answer is recorded first, as {@link open} does.
   */
  async openWire(label: string, opts: { connectMs?: number } = {}): Promise<WireSession> {
    const closedBefore = this.closings;
    const startMs = this.recorder.now();
    const wire = await WireSession.open(label, this.ctx.target, this.recorder, {
      connectMs: opts.connectMs ?? this.ctx.bounds.connectMs,
      stepMs: this.ctx.bounds.stepMs,
      applicationName: this.applicationName,
      ...(this.signal ? { signal: this.signal } : {}),
    }).catch((err: unknown) => {
      if (err instanceof PooltestError && err.code === 'PROTOCOL_VIOLATION')
        this.note(label, connectTag(label), '(connect, wire)', {
          startMs,
          error: { code: err.code, message: err.message },
        });
      throw err;
    });
    if (this.closings !== closedBefore) await wire.close();
    else this.wires.push(wire);
    return wire;
  }

  /** Closes every session this scenario opened, politely and in parallel, bounded. */
  async closeAll(): Promise<void> {
    this.closings++;
    const all = this.sessions.splice(0);
    const wires = this.wires.splice(0);
    const unused = this.ahead?.logins.splice(0) ?? [];
    await Promise.all([
      ...all.map((s) => s.close()),
      ...wires.map((w) => w.close()),
      ...unused.map(async (p) => (await p)?.close()),
    ]);
  }

  /**
   * Records something a scenario did that is not a query (Scenario.note): a login that broke
   * the protocol is evidence about the target.
   */
  abstract note(label: string, tag: string, what: string, detail?: NoteDetail): StepRecord;
}

/** A failed connection as evidence: the coded message, and the server's SQLSTATE when it sent one (53300). */
export function connectError(err: unknown): ErrorRecord {
  if (!(err instanceof PooltestError)) return { message: String(err) };
  const sqlstate = err.detail.sqlstate;
  const isSqlstate = typeof sqlstate === 'string' && /^[0-9A-Z]{5}$/.test(sqlstate);
  return { message: `${err.code}: ${err.message}`, ...(isSqlstate ? { code: sqlstate } : {}) };
}
