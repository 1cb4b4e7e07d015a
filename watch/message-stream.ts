/**
 * Frames one direction of a PostgreSQL v3 connection for observation. The proxy relays the raw
 * bytes itself; this reader only tells it where messages begin and end. It is the one place the
 * watch knows the frame layout, kept small so engine/wire's validating reader can replace it:
 * the watch needs exactly `push(chunk) -> { frames, violation }` and `frontend`/`backend` sides.
 *
 * Layout: a typed message is a type byte and an int32 length that counts itself but not the
 * type. Before the StartupMessage, the frontend sends untyped packets (int32 length, int32 code):
 * SSLRequest, GSSENCRequest, CancelRequest and the StartupMessage itself.
 *
 * Memory stays bounded whatever the traffic: a payload is kept only up to `keepBytes` (the rest
 * is skipped as it streams past, the frame marked `truncated`), and a declared length above
 * `maxMessageBytes` is a violation, never an allocation.
 */

/** Codes of the untyped startup-phase packets (PostgreSQL's pqcomm.h). */
export const SSL_REQUEST = 80877103;
export const GSSENC_REQUEST = 80877104;
export const CANCEL_REQUEST = 80877102;

/** Startup-phase packets are small; PostgreSQL refuses anything above 10 000 bytes. */
const MAX_STARTUP_BYTES = 10_000;

/** One complete message. */
export interface Frame {
  /** The type byte as a character; null for an untyped startup-phase packet. */
  type: string | null;
  /** Payload length (without the type byte and the length word). */
  length: number;
  /** The payload, or its first `keepBytes` bytes when `truncated`. */
  payload: Buffer;
  truncated: boolean;
}

/** What one push produced: the frames completed by it, and a violation that stops the stream. */
export interface PushResult {
  frames: Frame[];
  violation: string | null;
}

export interface MessageStreamOptions {
  /** Largest declared message accepted (default 1 GiB, PostgreSQL's own limit). */
  maxMessageBytes?: number;
  /** Payload bytes kept per frame for analysis (default 1 MiB). */
  keepBytes?: number;
}

/** Incremental framer for one direction; once a violation is reported it stays stopped. */
export class MessageStream {
  private readonly maxMessageBytes: number;
  private readonly keepBytes: number;
  /** Frontend only: untyped packets until the StartupMessage. */
  private startupPhase: boolean;
  /** Header bytes gathered so far (at most 5). */
  private header = Buffer.alloc(5);
  private headerHave = 0;
  private current: { type: string | null; length: number; parts: Buffer[]; kept: number; remaining: number } | null = null;
  private stopped: string | null = null;

  constructor(side: 'frontend' | 'backend', options: MessageStreamOptions = {}) {
    this.startupPhase = side === 'frontend';
    this.maxMessageBytes = options.maxMessageBytes ?? 1024 * 1024 * 1024;
    this.keepBytes = options.keepBytes ?? 1024 * 1024;
  }

  /** The violation that stopped this stream, if any. */
  get violation(): string | null {
    return this.stopped;
  }

  /** Feeds bytes in arrival order. Every byte is consumed: no call loops without progress. */
  push(chunk: Buffer): PushResult {
    const frames: Frame[] = [];
    if (this.stopped !== null) return { frames, violation: null };
    let at = 0;
    while (at < chunk.length) {
      if (this.current === null) {
        const headerSize = this.startupPhase ? 4 : 5;
        const take = Math.min(headerSize - this.headerHave, chunk.length - at);
        chunk.copy(this.header, this.headerHave, at, at + take);
        this.headerHave += take;
        at += take;
        if (this.headerHave < headerSize) break;
        const violation = this.begin();
        if (violation !== null) {
          this.stopped = violation;
          return { frames, violation };
        }
      }
      const cur = this.current!;
      const take = Math.min(cur.remaining, chunk.length - at);
      const keep = Math.min(take, this.keepBytes - cur.kept);
      if (keep > 0) {
        // Copy: the caller's chunk is relayed and may be reused; frames must not alias it.
        cur.parts.push(Buffer.from(chunk.subarray(at, at + keep)));
        cur.kept += keep;
      }
      cur.remaining -= take;
      at += take;
      if (cur.remaining === 0) frames.push(this.finish());
    }
    return { frames, violation: null };
  }

  /** Reads the header just completed; returns a violation or sets up the frame. */
  private begin(): string | null {
    const typed = !this.startupPhase;
    const type = typed ? String.fromCharCode(this.header[0]!) : null;
    const length = this.header.readInt32BE(typed ? 1 : 0);
    this.headerHave = 0;
    if (!typed && (length < 8 || length > MAX_STARTUP_BYTES)) return `startup packet with invalid length ${length}`;
    if (length < 4) return `message '${printable(type)}' with invalid length ${length}`;
    if (length - 4 > this.maxMessageBytes) return `message '${printable(type)}' declares ${length} bytes, above the limit of ${this.maxMessageBytes}`;
    this.current = { type, length: length - 4, parts: [], kept: 0, remaining: length - 4 };
    return null;
  }

  private finish(): Frame {
    const cur = this.current!;
    this.current = null;
    const payload = cur.parts.length === 1 ? cur.parts[0]! : Buffer.concat(cur.parts);
    // The StartupMessage (of any 3.x minor version) ends the untyped phase; SSL/GSS/cancel
    // requests keep it. The server negotiates unknown minor versions itself.
    if (cur.type === null && payload.length >= 4 && isStartupMessage(payload.readInt32BE(0))) this.startupPhase = false;
    return { type: cur.type, length: cur.length, payload, truncated: cur.kept < cur.length };
  }
}

/** The type byte for a message: a letter, or its code when it is not printable. */
function printable(type: string | null): string {
  if (type === null) return 'startup';
  const code = type.charCodeAt(0);
  return code >= 0x20 && code < 0x7f ? type : `\\x${code.toString(16).padStart(2, '0')}`;
}

/** True for a StartupMessage's protocol version (3.x), false for the special request codes. */
export function isStartupMessage(code: number): boolean {
  return code >>> 16 === 3 && code !== SSL_REQUEST && code !== GSSENC_REQUEST && code !== CANCEL_REQUEST;
}

/** The int32 code of an untyped packet (protocol version or request code), or null. */
export function startupCode(frame: Frame): number | null {
  return frame.type === null && frame.payload.length >= 4 ? frame.payload.readInt32BE(0) : null;
}
