/**
 * Rebuilds one connection's statements and transactions from its frames in both directions.
 * The backend answers frontend messages in order, so a FIFO of what the frontend asked for
 * (statements of a Query, Parse, Bind, Execute, Close, Sync) is matched with what came back:
 * CommandComplete runs a statement's effects, ErrorResponse drops the failed one and everything
 * up to the next Sync (as the server skips it), ReadyForQuery ends a round and, with status
 * 'I', the transaction. A transaction is rolled back when its last tag is ROLLBACK (also what
 * COMMIT of a failed block answers) or an error hit an implicit transaction.
 *
 * The same queue says what of the traffic the protocol checks concern (audit/protocol-traffic.ts):
 * a round is pipelined when a later Sync is already queued while its answer comes; a COPY is
 * seen in the server's CopyInResponse or CopyOutResponse, for whichever statement heads the queue.
 */
import { CLAIMS } from '../suites/catalogue.js';
import { isStartupMessage, type Frame } from './message-stream.js';
import { PayloadReader } from './payload-reader.js';
import { SessionState, type Dependency } from './session-state.js';
import type { EffectsCache, StatementEffects } from './statement-effects.js';
import type { WatchConnection } from './watch-types.js';
import type { TrafficKind } from '../audit/protocol-traffic.js';

/** One piece of traffic a protocol check concerns, on one connection. */
export interface TrafficEvent {
  kind: TrafficKind;
  /** The statement it concerns (as sent, or the protocol message when the text is not known). */
  sql: string;
  /** Ordinal of the transaction on its connection (1-based). */
  transaction: number;
  /** Inside an explicit transaction block. */
  inBlock: boolean;
}

type Pending =
  | { kind: 'stmt'; sql: string; effects: StatementEffects }
  /** A Query the parser refused (or too long to read): absorbs its completions. */
  | { kind: 'opaque' }
  | { kind: 'parse'; name: string; sql: string | null }
  | { kind: 'bind'; portal: string; statement: string; params: (string | null)[] }
  | { kind: 'execute'; portal: string }
  | { kind: 'close'; target: string; name: string }
  | { kind: 'sync' };

interface Portal {
  sql: string | null;
  params: (string | null)[];
}

/** Bounds per connection: what the frontend may have in flight, and named things remembered. */
const MAX_PENDING = 10_000;
const MAX_NAMES = 5_000;
/** Bind parameters kept for lock keys: only short text values matter there. */
const MAX_PARAMS = 8;
const MAX_PARAM_BYTES = 64;

export class ConnectionTracker {
  readonly state: SessionState;
  readonly info: WatchConnection;
  statements = 0;
  transactions = 0;
  /** Set when tracking stopped (malformed payload, bounds): relaying goes on regardless. */
  stopped: string | null = null;
  private readonly pending: Pending[] = [];
  private head = 0;
  private readonly prepared = new Map<string, string | null>();
  /** Named statements of `prepared` already noted as parsed or bound in a pipeline. */
  private readonly seenPipelined = new Set<string>();
  private readonly portals = new Map<string, Portal>();
  private lastTag = '';
  private errorSeen = false;
  private inBlock = false;
  /** Syncs (and Queries) sent and not answered yet: two or more is a pipeline. */
  private syncs = 0;
  /** Within a run of pipelined rounds, until the queue drains. */
  private pipelining = false;
  /** The COPY in progress, for its CopyFail. */
  private copySql: string | null = null;
  /** The SQL of the round's last answered request, to show a pipelined round by. */
  private roundSql: string | null = null;

  constructor(
    info: WatchConnection,
    private readonly cache: EffectsCache,
    report: (d: Dependency, c: WatchConnection) => void,
    private readonly warn: (text: string) => void,
    private readonly traffic: (e: TrafficEvent, c: WatchConnection) => void = () => undefined,
  ) {
    this.info = info;
    this.state = new SessionState((d) => report(d, this.info));
  }

  /** A frame the client sent. */
  frontend(frame: Frame): void {
    if (this.stopped !== null) return;
    try {
      this.frontendFrame(frame);
    } catch (error) {
      this.stop(`client message '${frame.type ?? 'startup'}' could not be read: ${(error as Error).message}`);
    }
  }

  /** A frame the server sent. */
  backend(frame: Frame): void {
    if (this.stopped !== null) return;
    try {
      this.backendFrame(frame);
    } catch (error) {
      this.stop(`server message '${frame.type}' could not be read: ${(error as Error).message}`);
    }
  }

  /** The connection ended: report what its live state was used for, and a pipeline left unanswered. */
  close(): void {
    if (this.stopped === null && (this.syncs >= 2 || (this.pipelining && this.syncs >= 1)))
      this.note('pipeline-disconnect', this.headSql() ?? `${this.syncs} rounds unanswered`);
    this.state.close();
  }

  private frontendFrame(frame: Frame): void {
    const r = new PayloadReader(frame.payload);
    switch (frame.type) {
      case null:
        return this.startup(frame, r);
      case 'Q': {
        if (frame.truncated) return this.enqueue({ kind: 'opaque' }, { kind: 'sync' });
        const sql = r.cstring();
        const parsed = this.cache.effectsOf(sql);
        if (!parsed.ok) {
          this.warn(
            `connection ${this.info.id}: a statement could not be parsed (${parsed.error}); its effects are not followed`,
          );
          return this.enqueue({ kind: 'opaque' }, { kind: 'sync' });
        }
        return this.enqueue(...parsed.statements.map((s): Pending => ({ kind: 'stmt', sql: s.text, effects: s })), {
          kind: 'sync',
        });
      }
      case 'P': {
        const name = r.cstring();
        const sql = frame.truncated ? null : r.cstring();
        return this.enqueue({ kind: 'parse', name, sql });
      }
      case 'B': {
        const portal = r.cstring();
        const statement = r.cstring();
        return this.enqueue({ kind: 'bind', portal, statement, params: frame.truncated ? [] : bindParams(r) });
      }
      case 'E':
        return this.enqueue({ kind: 'execute', portal: r.cstring() });
      case 'C': {
        const target = String.fromCharCode(r.byte());
        return this.enqueue({ kind: 'close', target, name: r.cstring() });
      }
      case 'f':
        return this.note('copy-fail', this.copySql ?? 'COPY FROM STDIN');
      // A fast-path function call is answered with ReadyForQuery, like a Sync.
      case 'S':
      case 'F':
        return this.enqueue({ kind: 'sync' });
      default:
        return;
    }
  }

  private startup(frame: Frame, r: PayloadReader): void {
    if (frame.payload.length < 4 || !isStartupMessage(r.int32())) return;
    // Name/value pairs up to an empty name.
    for (let name = r.cstring(); name !== ''; name = r.cstring()) {
      const value = r.cstring();
      if (name === 'application_name') this.info.applicationName = value;
      else if (name === 'user') this.info.user = value;
      else if (name === 'database') this.info.database = value;
    }
  }

  private backendFrame(frame: Frame): void {
    const r = new PayloadReader(frame.payload);
    switch (frame.type) {
      case '1': {
        const item = this.take('parse');
        if (item === null) return;
        if (this.prepared.size >= MAX_NAMES && !this.prepared.has(item.name))
          return this.stop(`more than ${MAX_NAMES} named statements`);
        this.prepared.set(item.name, item.sql);
        this.roundSql = item.sql ?? this.roundSql;
        // Once per Parse: its Bind in a pipelined round (below) does not count it again.
        this.seenPipelined.delete(item.name);
        if (item.name !== '' && this.pipelined()) {
          this.seenPipelined.add(item.name);
          this.note('pipeline-prepared', item.sql ?? `(named statement "${item.name}")`);
        }
        if (item.name !== '') {
          this.state.protocol(
            {
              op: 'create',
              kind: 'prepared',
              key: item.name,
              check: CLAIMS.checkOfStatement('protocol named statement'),
              what: `Parse of named statement "${item.name}"`,
              certain: true,
            },
            item.sql ?? `(named statement "${item.name}")`,
          );
        }
        return;
      }
      case '2': {
        const item = this.take('bind');
        if (item === null) return;
        if (this.portals.size >= MAX_NAMES && !this.portals.has(item.portal)) this.portals.clear();
        this.portals.set(item.portal, { sql: this.prepared.get(item.statement) ?? null, params: item.params });
        // A named statement bound in a pipelined round needs it on the backend that round runs
        // on, wherever it was parsed: its Parse may have been answered before the next round
        // reached the watch (libpq flushes each round at its Sync), and was then not seen as
        // pipelined (a loaded CI run missed it that way).
        if (item.statement !== '' && this.pipelined() && !this.seenPipelined.has(item.statement)) {
          // Only names the watch saw parsed are kept (as bounded as `prepared`).
          if (this.prepared.has(item.statement)) this.seenPipelined.add(item.statement);
          this.note('pipeline-prepared', this.prepared.get(item.statement) ?? `(named statement "${item.statement}")`);
        }
        if (item.statement !== '')
          this.state.protocol(
            { op: 'use', kind: 'prepared', key: item.statement, what: `Bind to named statement "${item.statement}"` },
            this.prepared.get(item.statement) ?? `Bind "${item.statement}"`,
          );
        return;
      }
      case '3': {
        const item = this.take('close');
        if (item === null) return;
        if (item.target === 'S') {
          if (item.name !== '') this.note('close', this.prepared.get(item.name) ?? `Close of statement "${item.name}"`);
          this.prepared.delete(item.name);
          this.seenPipelined.delete(item.name);
          this.state.protocol({ op: 'undo', kind: 'prepared', key: item.name }, `Close of statement "${item.name}"`);
        } else this.portals.delete(item.name);
        return;
      }
      case 'C':
        this.lastTag = r.cstring();
        if (this.lastTag === 'BEGIN') this.inBlock = true;
        return this.completed();
      case 's':
        return this.completed();
      case 'I':
        if (this.peek()?.kind === 'stmt' || this.peek()?.kind === 'execute') this.completed();
        return;
      case 'E':
        return this.failed();
      case 'G':
      case 'H': {
        this.copySql = this.headSql();
        return this.note(frame.type === 'G' ? 'copy-in' : 'copy-out', this.copySql ?? 'COPY');
      }
      case 'Z':
        return this.ready(String.fromCharCode(r.byte()));
      case 'A': {
        r.int32();
        const channel = r.cstring();
        const payload = r.cstring();
        this.state.notification(
          channel,
          `notification on "${channel}"${payload === '' ? '' : ` with payload ${JSON.stringify(payload.slice(0, 200))}`}`,
        );
        return;
      }
      case 'S': {
        const name = r.cstring();
        if (name === 'application_name') this.info.applicationName = r.cstring();
        return;
      }
      default:
        return;
    }
  }

  /** A statement (Query part or Execute) completed: its effects happened. */
  private completed(): void {
    const item = this.peek();
    if (item === undefined || item.kind === 'opaque') return this.countStatement();
    if (item.kind !== 'stmt' && item.kind !== 'execute') return;
    this.head++;
    this.countStatement();
    if (item.kind === 'stmt') {
      this.roundSql = item.sql;
      return this.state.statement(item.sql, item.effects);
    }
    const portal = this.portals.get(item.portal);
    this.roundSql = portal?.sql ?? this.roundSql;
    if (portal === undefined || portal.sql === null) return;
    const parsed = this.cache.effectsOf(portal.sql);
    const first = parsed.ok ? parsed.statements[0] : undefined;
    if (first === undefined) return;
    this.state.statement(portal.sql, withParams(first, portal.params));
  }

  /** ErrorResponse: the failing request and the rest of its round are skipped by the server. */
  private failed(): void {
    this.errorSeen = true;
    if (this.syncs >= 2) this.note('pipeline-error', this.headSql() ?? '(the failing request)');
    while (this.head < this.pending.length && this.pending[this.head]!.kind !== 'sync') this.head++;
  }

  private ready(status: string): void {
    // A round answered while a later one was already sent: once per run of pipelined rounds.
    if (this.syncs >= 2 && !this.pipelining) {
      this.pipelining = true;
      this.note('pipeline', this.headSql() ?? this.roundSql ?? '(a pipelined round)');
    }
    while (this.head < this.pending.length) {
      if (this.pending[this.head++]!.kind === 'sync') {
        this.syncs--;
        break;
      }
    }
    if (this.syncs <= 0) this.pipelining = false;
    this.copySql = null;
    this.roundSql = null;
    this.compact();
    if (status === 'T' || status === 'E') {
      this.inBlock = true;
      return;
    }
    const rolledBack = this.lastTag === 'ROLLBACK' || (this.errorSeen && !this.inBlock);
    const before = this.state.transaction;
    this.state.endTransaction(rolledBack);
    if (this.state.transaction !== before) this.transactions++;
    this.errorSeen = false;
    this.inBlock = false;
    this.lastTag = '';
  }

  private countStatement(): void {
    this.statements++;
  }

  private take<K extends Pending['kind']>(kind: K): Extract<Pending, { kind: K }> | null {
    const item = this.peek();
    if (item?.kind !== kind) return null;
    this.head++;
    return item as Extract<Pending, { kind: K }>;
  }

  private peek(): Pending | undefined {
    return this.pending[this.head];
  }

  private enqueue(...items: Pending[]): void {
    if (this.pending.length - this.head + items.length > MAX_PENDING)
      return this.stop(`more than ${MAX_PENDING} requests in flight`);
    this.pending.push(...items);
    for (const item of items) if (item.kind === 'sync') this.syncs++;
  }

  /** Whether the request being answered belongs to a pipeline: more rounds sent after its own. */
  private pipelined(): boolean {
    return this.syncs >= 2 || this.pipelining;
  }

  /** The SQL of the request heading the queue (a Query's statement, or an Execute's portal). */
  private headSql(): string | null {
    for (let i = this.head; i < this.pending.length; i++) {
      const item = this.pending[i]!;
      if (item.kind === 'stmt') return item.sql;
      if (item.kind === 'execute') return this.portals.get(item.portal)?.sql ?? null;
      if (item.kind === 'parse') return item.sql;
      // A Bind can fail itself (planning a custom plan folds constants: 1 / $1 with 0), and
      // the portal it would have made is not the one an earlier round left under its name.
      if (item.kind === 'bind') return this.prepared.get(item.statement) ?? null;
      if (item.kind === 'sync') return null;
    }
    return null;
  }

  private note(kind: TrafficKind, sql: string): void {
    this.traffic({ kind, sql, transaction: this.state.transaction, inBlock: this.inBlock }, this.info);
  }

  /** Drops consumed entries so the queue's memory follows what is in flight, not the history. */
  private compact(): void {
    if (this.head === 0) return;
    this.pending.splice(0, this.head);
    this.head = 0;
  }

  private stop(reason: string): void {
    this.stopped = reason;
    this.warn(`connection ${this.info.id}: stopped following its statements: ${reason} (traffic is still relayed)`);
  }
}

/** Up to a few short text parameters of a Bind, for advisory lock keys sent as `$1`. */
function bindParams(r: PayloadReader): (string | null)[] {
  const formats = r.int16();
  const codes: number[] = [];
  for (let i = 0; i < formats; i++) codes.push(r.int16());
  const count = r.int16();
  const params: (string | null)[] = [];
  for (let i = 0; i < count && i < MAX_PARAMS; i++) {
    const length = r.int32();
    const format = codes.length === 1 ? codes[0] : (codes[i] ?? 0);
    const bytes = length < 0 ? null : r.bytes(length);
    params.push(bytes === null || format !== 0 || length > MAX_PARAM_BYTES ? null : bytes.toString('utf8'));
  }
  return params;
}

/** Lock keys written as `$n` take the bound value, so a lock and its unlock can be matched. */
function withParams(effects: StatementEffects, params: (string | null)[]): StatementEffects {
  if (!effects.effects.some((e) => e.kind === 'lock' && e.key.includes('$'))) return effects;
  const fill = (key: string): string => key.replace(/\$(\d+)/g, (whole, n: string) => params[Number(n) - 1] ?? whole);
  return {
    ...effects,
    effects: effects.effects.map((e) =>
      e.kind === 'lock'
        ? { ...e, key: fill(e.key), ...(e.op !== 'undo' ? { what: e.what.replace(e.key, fill(e.key)) } : {}) }
        : e,
    ),
  };
}
