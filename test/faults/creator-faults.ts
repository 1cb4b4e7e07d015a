/**
 * The logins and statements a check sends through the fault proxy, as events a test can fault
 * one at a time: the n-th login (a StartupMessage reaching the proxy) or a statement (a
 * simple-protocol Query or a Parse), named by its text with the run's id taken out, so that
 * the same statement of a run under another id is recognised.
 */
import type { FaultProxy } from '../../fixtures/fault-proxy.js';
import { cstr, int32, msg } from '../../fixtures/misbehaving-bytes.js';

/** One login or statement of a check, in the order the proxy saw it. */
export interface ProxyEvent {
  kind: 'login' | 'statement';
  /** For a statement: its text with the run id replaced by `RUN`; for a login: `login`. */
  text: string;
  /** How many events of the same kind and text came before it (0: the first). */
  occurrence: number;
}

/**
 * How an event is faulted: held before the pooler (a login or query queued behind other
 * clients: its client gives up and leaves, and it never arrives), or passed on and then its
 * connection moves no byte again (`stall`: no answer comes back) or is closed (`cut`), or
 * refused in its place (`refuse`: a login for a database the pooler does not know, which
 * PgBouncer refuses with a FATAL 08P01; a statement the server refuses with 53300, as a
 * pooler at its client limit does): it never runs, and its client gets an error.
 */
export type EventFault = 'hold' | 'stall' | 'cut' | 'refuse';

/** The database a refused login asks for: no pooler serves it. */
const NO_DATABASE = 'pooltest_refused';

/** What the proxy sends in place of a refused login or statement (`chunk`: what the client sent). */
export function refusal(chunk: Buffer, kind: ProxyEvent['kind']): Buffer {
  if (kind === 'statement')
    return msg(
      'Q',
      cstr(
        `DO $refused$ BEGIN RAISE EXCEPTION 'no more connections allowed (max_client_conn)' USING ERRCODE = '53300'; END $refused$`,
      ),
    );
  // The StartupMessage again, its database changed (its other parameters as they were).
  const fields = chunk.toString('utf8', 8, chunk.readUInt32BE(0)).split('\0');
  const pairs: string[] = [];
  for (let i = 0; i + 1 < fields.length && fields[i] !== ''; i += 2)
    pairs.push(fields[i]!, fields[i] === 'database' ? NO_DATABASE : fields[i + 1]!);
  if (!pairs.includes('database')) pairs.push('database', NO_DATABASE);
  const body = Buffer.concat([int32(PROTOCOL_3), ...pairs.map(cstr), Buffer.from([0])]);
  return Buffer.concat([int32(body.length + 4), body]);
}

/** The protocol 3.0 StartupMessage code (an SSLRequest or CancelRequest is not a login). */
const PROTOCOL_3 = 196_608;

/** The event a chunk the client sent carries, if any (its first message decides). */
export function eventOf(chunk: Buffer, runId: string): Pick<ProxyEvent, 'kind' | 'text'> | null {
  if (chunk.length >= 8 && chunk.readUInt32BE(4) === PROTOCOL_3) return { kind: 'login', text: 'login' };
  const type = String.fromCharCode(chunk[0] ?? 0);
  if (type !== 'Q' && type !== 'P') return null;
  const text = chunk.subarray(5).toString('utf8').split('\0').join(' ').trim();
  return { kind: 'statement', text: text.split(runId).join('RUN') };
}

/** Counts events as the proxy passes them on, for naming each one with its occurrence. */
export class EventCounter {
  private readonly seen = new Map<string, number>();
  constructor(private readonly runId: string) {}

  /** The event `chunk` carries, numbered, or null. */
  next(chunk: Buffer): ProxyEvent | null {
    const e = eventOf(chunk, this.runId);
    if (e === null) return null;
    const key = `${e.kind}\0${e.text}`;
    const occurrence = this.seen.get(key) ?? 0;
    this.seen.set(key, occurrence + 1);
    return { ...e, occurrence };
  }
}

/** Records every event of the check (the proxy's arming never fires). */
export function recordEvents(proxy: FaultProxy, runId: string): ProxyEvent[] {
  const counter = new EventCounter(runId);
  const events: ProxyEvent[] = [];
  proxy.afterChunk(
    'toServer',
    (chunk) => {
      const e = counter.next(chunk);
      if (e !== null) events.push(e);
      return false;
    },
    () => undefined,
  );
  return events;
}

/**
 * Arms `fault` for the event equal to `target` (same kind, text and occurrence) of the run
 * `runId`, for `ms`. `fired()` tells whether it came; `stop()` disarms it.
 */
export function armFault(
  proxy: FaultProxy,
  runId: string,
  target: ProxyEvent,
  fault: EventFault,
  ms: number,
): { fired(): boolean; stop(): void } {
  const counter = new EventCounter(runId);
  let fired = false;
  let stopped = false;
  const isTarget = (chunk: Buffer): boolean => {
    const e = counter.next(chunk);
    return e !== null && e.kind === target.kind && e.text === target.text && e.occurrence === target.occurrence;
  };
  if (fault === 'hold' || fault === 'refuse') {
    // A rewrite sees the chunk before it is passed on: re-armed for every other chunk.
    const arm = (): void =>
      proxy.rewriteNext('toServer', (bytes) => {
        if (stopped || fired) return [{ bytes }];
        if (!isTarget(bytes)) {
          arm();
          return [{ bytes }];
        }
        fired = true;
        return fault === 'hold' ? [{ bytes, afterMs: ms }] : [{ bytes: refusal(bytes, target.kind) }];
      });
    arm();
  } else {
    proxy.afterChunk('toServer', isTarget, (connection) => {
      fired = true;
      if (fault === 'stall') proxy.blackhole(connection, ms);
      else proxy.drop(connection);
    });
  }
  return {
    fired: () => fired,
    stop: () => {
      stopped = true;
      if (fault === 'stall' || fault === 'cut')
        proxy.afterChunk(
          'toServer',
          () => false,
          () => undefined,
        );
    },
  };
}

/** A short name for a test's table of results. */
export function describeEvent(e: ProxyEvent): string {
  const base = e.kind === 'login' ? 'login' : e.text.slice(0, 70);
  return `${base} #${e.occurrence + 1}`;
}
