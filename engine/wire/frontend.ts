/**
 * pooltest's own writer of frontend (client to server) messages, for the checks that speak the
 * protocol as drivers do (pipelines of Parse/Bind/Execute/Sync, COPY, Close) rather than as
 * node-postgres lets them. Each builder gives the bytes and a short rendering of what they say,
 * so a recorded step shows the messages a reader can follow (`Parse "s1" SELECT 1`), never hex.
 *
 * ```ts
 * // fe: this module, imported as a namespace
 * const batch = [fe.parse('s1', 'SELECT $1::int AS n'), fe.bind('', 's1', ['7']), fe.execute(), fe.sync()];
 * socket.write(Buffer.concat(batch.map((m) => m.bytes)));
 * ```
 *
 * Text formats only: parameters and results travel as text, which is what the checks compare.
 */

/** One frontend message: its type byte, its bytes on the wire, and how a step shows it. */
export interface FrontendMessage {
  /** The type byte as a character (`P`, `B`, `S`...). */
  readonly type: string;
  readonly bytes: Buffer;
  readonly shown: string;
}

/** A typed message: the type byte, an int32 length counting itself, the body. */
export function typed(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

/** A simple-protocol Query's bytes. */
export const queryMessage = (sql: string): Buffer => typed('Q', Buffer.from(`${sql}\0`));

const cstring = (s: string): Buffer => Buffer.from(`${s}\0`);

function int16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n, 0);
  return b;
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n, 0);
  return b;
}

const message = (type: string, body: Buffer, shown: string): FrontendMessage => ({
  type,
  bytes: typed(type, body),
  shown,
});

/** A name as shown: the unnamed statement or portal is `""`. */
const named = (name: string): string => JSON.stringify(name);

/** Query: one or more statements, simple protocol (one ReadyForQuery at the end). */
export const query = (sql: string): FrontendMessage => ({ type: 'Q', bytes: queryMessage(sql), shown: `Query ${sql}` });

/** Parse: a named (or unnamed, '') statement, with parameter type oids (0 or absent: let the server infer). */
export function parse(name: string, text: string, paramTypes: readonly number[] = []): FrontendMessage {
  const body = Buffer.concat([cstring(name), cstring(text), int16(paramTypes.length), ...paramTypes.map(int32)]);
  const types = paramTypes.length > 0 ? ` (types ${paramTypes.join(', ')})` : '';
  return message('P', body, `Parse ${named(name)}${types} ${text}`);
}

/** Bind: a portal over a statement, text parameters (null: SQL NULL), text results. */
export function bind(portal: string, statement: string, params: ReadonlyArray<string | null> = []): FrontendMessage {
  const values = params.map((p) =>
    p === null ? int32(-1) : Buffer.concat([int32(Buffer.byteLength(p)), Buffer.from(p)]),
  );
  // No parameter format codes (all text), the values, no result format codes (all text).
  const body = Buffer.concat([
    cstring(portal),
    cstring(statement),
    int16(0),
    int16(params.length),
    ...values,
    int16(0),
  ]);
  const shownParams = params.length > 0 ? ` (${params.map((p) => (p === null ? 'NULL' : `'${p}'`)).join(', ')})` : '';
  return message('B', body, `Bind ${named(portal)} to ${named(statement)}${shownParams}`);
}

/** Describe a statement ('S') or a portal ('P'). */
export const describe = (kind: 'S' | 'P', name: string): FrontendMessage =>
  message('D', Buffer.concat([Buffer.from(kind, 'latin1'), cstring(name)]), `Describe ${kind} ${named(name)}`);

/** Execute a portal; maxRows 0 = all rows. */
export const execute = (portal = '', maxRows = 0): FrontendMessage =>
  message(
    'E',
    Buffer.concat([cstring(portal), int32(maxRows)]),
    `Execute ${named(portal)}${maxRows > 0 ? ` max ${maxRows}` : ''}`,
  );

/** Sync: ends the implicit transaction (outside BEGIN) and asks for ReadyForQuery. */
export const sync = (): FrontendMessage => message('S', Buffer.alloc(0), 'Sync');

/** Flush: asks for pending output without ending anything. */
export const flush = (): FrontendMessage => message('H', Buffer.alloc(0), 'Flush');

/** Close a statement ('S') or a portal ('P'). */
export const close = (kind: 'S' | 'P', name: string): FrontendMessage =>
  message('C', Buffer.concat([Buffer.from(kind, 'latin1'), cstring(name)]), `Close ${kind} ${named(name)}`);

/** CopyData: a chunk of COPY FROM STDIN's input. */
export function copyData(data: string | Buffer): FrontendMessage {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const text = bytes.toString('utf8');
  return message('d', bytes, `CopyData ${JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text)}`);
}

export const copyDone = (): FrontendMessage => message('c', Buffer.alloc(0), 'CopyDone');

/** CopyFail: the client aborts COPY FROM STDIN with `reason`. */
export const copyFail = (reason: string): FrontendMessage => message('f', cstring(reason), `CopyFail ${reason}`);

/** Terminate: the client is leaving. */
export const terminate = (): FrontendMessage => message('X', Buffer.alloc(0), 'Terminate');

/** How many ReadyForQuery messages `messages` ask for outside COPY: one per Sync and per Query. */
export function readiesAskedFor(messages: readonly FrontendMessage[]): number {
  return messages.filter((m) => m.type === 'S' || m.type === 'Q').length;
}
