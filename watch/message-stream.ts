/**
 * Frames one direction of a PostgreSQL v3 connection for observation. The proxy relays the raw
 * bytes itself; this reader only tells it where messages begin and end. It is the one place the
 * watch knows the frame layout, kept small so engine/wire's validating reader can replace it:
 * the watch needs exactly `push(chunk) -> { frames, violation }` and `frontend`/`backend` sides.
 *
 * Layout: a typed message is a type byte and an int32 length that counts itself but not the
 * type. Before the StartupMessage, the frontend sends untyped packets (int32 length, int32 code):
 * SSLRequest, GSSENCRequest, CancelRequest and the StartupMessage itself. engine/wire knows the
 * layout and validates every message (lengths, fields, terminators); this module only adapts
 * its frames to what the watch keeps.
 */

/** Codes of the untyped startup-phase packets (PostgreSQL's pqcomm.h). */
export const SSL_REQUEST = 80877103;
export const GSSENC_REQUEST = 80877104;
export const CANCEL_REQUEST = 80877102;

import {
  DEFAULT_MAX_MESSAGE_BYTES,
  FrameReader,
  ProtocolViolationError,
  type Frame as WireFrame,
} from '../engine/wire/index.js';

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

/**
 * Frames one direction with engine/wire's validating reader, the same one the wire guard puts in
 * front of pg's parser: one definition of what a well-formed message is, for the checks and for
 * the watch. What the watch keeps of each frame is a copy of at most `keepBytes`, so frames never
 * alias the relayed chunk, and memory per connection is bounded by the largest message in flight
 * (at most `maxMessageBytes`), never by the length of the session.
 */
export class MessageStream {
  private readonly reader: FrameReader;
  private readonly keepBytes: number;
  private stopped: string | null = null;

  constructor(side: 'frontend' | 'backend', options: MessageStreamOptions = {}) {
    this.reader = new FrameReader({
      direction: side,
      maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    });
    this.keepBytes = options.keepBytes ?? 1024 * 1024;
  }

  /** The violation that stopped this stream, if any. */
  get violation(): string | null {
    return this.stopped;
  }

  /**
   * Feeds bytes in arrival order. Every byte is consumed (the reader never loops without
   * progress). The frames a chunk completed before a violation are still returned with it.
   */
  push(chunk: Buffer): PushResult {
    if (this.stopped !== null) return { frames: [], violation: null };
    const raw: WireFrame[] = [];
    let violation: string | null = null;
    try {
      this.reader.push(chunk, raw);
    } catch (err) {
      if (!(err instanceof ProtocolViolationError)) throw err;
      violation = this.stopped = err.message;
    }
    const frames: Frame[] = [];
    for (const f of raw) {
      // The one-byte answer to SSLRequest/GSSENCRequest is the proxy's own business.
      if (f.kind === 'negotiation') continue;
      const typed = f.type !== '';
      const length = typed ? f.length - 4 : f.payload.length;
      const kept = Buffer.from(f.payload.subarray(0, Math.min(f.payload.length, this.keepBytes)));
      frames.push({ type: typed ? f.type : null, length, payload: kept, truncated: kept.length < length });
    }
    return { frames, violation };
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
