/**
 * An incremental, validating reader of PostgreSQL v3 protocol frames, for either direction.
 * Hand-written rather than taken from pg-protocol: that parser trusts declared lengths and
 * reads fields past them (an ErrorResponse without its terminator inside its length sends it
 * into an endless loop), and validating is the whole point here.
 *
 * Feed it bytes as they arrive, split anywhere: every byte is consumed exactly once (no loop
 * can spin without progress), a message's declared length is bounded at its header before its
 * body is awaited or buffered, and a complete message's content is checked before it counts.
 * The first violation is thrown as a {@link ProtocolViolationError} and sticks: every later
 * call throws it again.
 *
 * ```ts
 * const reader = new FrameReader({ direction: 'backend' });
 * for (const frame of reader.push(chunk)) console.log(frame.type, frame.length);
 * reader.end(); // throws when the stream stopped mid-message
 * ```
 *
 * `push` returns frames; `check` validates only (what the pg guard uses: no frame objects, and
 * bodies are buffered only for the messages whose content is checked and that span chunks).
 * One reader uses one of the two for its whole life.
 */
import {
  int32At,
  MAX_STARTUP_LENGTH,
  SPECS,
  startupKind,
  type MessageSpec,
  type Problem,
  type UntypedKind,
} from './messages.js';
import {
  EVIDENCE_BYTES,
  hexOf,
  ProtocolViolationError,
  typeChar,
  type Direction,
  type ProtocolViolation,
} from './violation.js';

export interface FrameReaderOptions {
  direction: Direction;
  /**
   * Upper bound on the declared length of messages without a bound of their own (DataRow,
   * CopyData, Query...). Default 1 GiB, PostgreSQL's own limit on a field. Small messages
   * (ErrorResponse, ParameterStatus, authentication...) have far smaller bounds.
   */
  maxMessageBytes?: number;
  /** Per type byte, a bound replacing the built-in one (`{ E: 65536 }`). */
  limits?: Readonly<Record<string, number>>;
}

export interface Frame {
  /** The type byte as a character; `''` for an untyped packet (see `kind`). */
  type: string;
  /** The declared length (counts its own 4 bytes, not the type byte); 0 for a negotiation byte. */
  length: number;
  /** The body after the length. A view into the pushed chunk when the frame lay inside one: do not mutate chunks after pushing them. */
  payload: Buffer;
  /** Untyped packets at the start of a frontend stream, and the backend's one-byte answer to SSLRequest/GSSENCRequest. */
  kind?: UntypedKind | 'negotiation';
}

/** PostgreSQL's bound on a field value, used as the default bound on big messages. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024 * 1024;

const EMPTY = Buffer.alloc(0);

export class FrameReader {
  readonly direction: Direction;
  /** Bound on the declared length, by type byte: looked up per message without allocating. */
  private readonly maxByCode: number[];
  private readonly specs: ReadonlyArray<MessageSpec | undefined>;
  /** Frontend streams start with untyped packets (startup, SSLRequest...) until a StartupMessage. */
  private untyped: boolean;
  private afterCancel = false;
  /** After an SSLRequest/GSSENCRequest the backend answers with one untyped byte. */
  private negotiation = false;
  private mode: 'push' | 'check' | null = null;
  private failed: ProtocolViolationError | null = null;
  /** Bytes consumed by earlier calls: stream offsets for the evidence. */
  private consumed = 0;

  // The message being read.
  private readonly hdr = Buffer.alloc(5);
  private hdrHave = 0;
  /** Where the current message's header bytes are (a chunk, or `hdr` when it was split). */
  private hdrBuf: Buffer = EMPTY;
  private hdrAt = 0;
  private code = 0;
  private declared = 0;
  private spec: MessageSpec | undefined;
  private msgStart = 0;
  /** -1 while reading a header. */
  private bodyRemaining = -1;
  private bodyLen = 0;
  private keep = false;
  private acc: Buffer | null = null;
  private accHave = 0;

  constructor(opts: FrameReaderOptions) {
    this.direction = opts.direction;
    const limits = opts.limits ?? {};
    this.specs = SPECS[opts.direction];
    this.maxByCode = Array.from(this.specs, (spec, code) =>
      spec ? (limits[typeChar(code)] ?? spec.max ?? opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES) : 0,
    );
    this.untyped = opts.direction === 'frontend';
  }

  /**
   * Consumes `chunk` and returns the frames it completed. Throws {@link ProtocolViolationError};
   * frames the chunk completed before the violation are in `out` when the caller passes one
   * (a recording proxy still wants the StartupMessage that preceded a bad message).
   */
  push(chunk: Buffer, out: Frame[] = []): Frame[] {
    this.setMode('push');
    this.consume(chunk, out);
    return out;
  }

  /** Consumes and validates `chunk` without building frames. Throws {@link ProtocolViolationError}. */
  check(chunk: Buffer): void {
    this.setMode('check');
    this.consume(chunk, null);
  }

  /** The stream ended: throws when it stopped inside a message. */
  end(): void {
    if (this.failed) throw this.failed;
    const have = this.hdrHave + (this.bodyRemaining >= 0 ? this.headerSize() + this.accHave : 0);
    if (have === 0) return;
    const declared = this.bodyRemaining >= 0 ? this.declared : null;
    const bytes =
      this.bodyRemaining >= 0
        ? [
            this.hdrBuf.subarray(this.hdrAt, this.hdrAt + this.headerSize()),
            (this.acc ?? EMPTY).subarray(0, this.accHave),
          ]
        : [this.hdr.subarray(0, this.hdrHave)];
    this.fail(
      {
        reason: `the stream ended inside a message after ${have} of its bytes`,
        actualLength: have - (this.untyped ? 0 : 1),
      },
      declared,
      Buffer.concat(bytes),
    );
  }

  /** The next backend byte answers an SSLRequest or GSSENCRequest (`S`/`G` yes, `N` no; or an ErrorResponse). */
  expectNegotiationResponse(): void {
    this.negotiation = true;
  }

  /** Bytes consumed so far. */
  get offset(): number {
    return this.consumed;
  }

  private setMode(mode: 'push' | 'check'): void {
    if (this.mode !== null && this.mode !== mode)
      throw new Error('a FrameReader uses either push() or check(), not both');
    this.mode = mode;
    if (this.failed) throw this.failed;
  }

  private headerSize(): number {
    return this.untyped ? 4 : 5;
  }

  private consume(chunk: Buffer, out: Frame[] | null): void {
    const n = chunk.length;
    let i = 0;
    try {
      while (i < n) {
        if (this.bodyRemaining < 0) {
          i = this.header(chunk, i, out);
        } else if (this.accHave === 0 && n - i >= this.bodyRemaining) {
          // The whole body is in this chunk: checked in place, no copy.
          const end = i + this.bodyRemaining;
          this.finish(chunk, i, end, out);
          i = end;
        } else {
          const take = Math.min(n - i, this.bodyRemaining);
          if (this.keep) {
            this.acc ??= Buffer.allocUnsafe(this.bodyLen);
            chunk.copy(this.acc, this.accHave, i, i + take);
          }
          this.accHave += take;
          this.bodyRemaining -= take;
          i += take;
          if (this.bodyRemaining === 0) this.finish(this.acc ?? EMPTY, 0, this.bodyLen, out);
        }
      }
    } finally {
      this.consumed += i;
    }
  }

  /** Reads header bytes from `chunk[i...]`; returns the index after what it consumed. */
  private header(chunk: Buffer, i: number, out: Frame[] | null): number {
    if (this.negotiation && this.hdrHave === 0) {
      const b = chunk[i]!;
      this.negotiation = false;
      if (b === 0x53 || b === 0x4e || b === 0x47) {
        out?.push({ type: String.fromCharCode(b), length: 0, payload: EMPTY, kind: 'negotiation' });
        return i + 1;
      }
      // Anything else must be a typed message (an ErrorResponse from an old server).
    }
    if (this.afterCancel) {
      this.msgStart = this.consumed + i;
      this.fail(
        { reason: 'bytes followed a CancelRequest, which ends the connection' },
        null,
        chunk.subarray(i, i + EVIDENCE_BYTES),
      );
    }
    const size = this.headerSize();
    if (this.hdrHave === 0) {
      this.msgStart = this.consumed + i;
      if (!this.untyped) this.typeByte(chunk[i]!, chunk, i);
      if (chunk.length - i >= size) {
        this.hdrBuf = chunk;
        this.hdrAt = i;
        this.begin(int32At(chunk, i + size - 4), chunk, i, out);
        return i + size;
      }
    }
    const take = Math.min(size - this.hdrHave, chunk.length - i);
    chunk.copy(this.hdr, this.hdrHave, i, i + take);
    this.hdrHave += take;
    if (this.hdrHave === size) {
      this.hdrHave = 0;
      this.hdrBuf = this.hdr;
      this.hdrAt = 0;
      this.begin(this.hdr.readInt32BE(size - 4), this.hdr, 0, out);
    }
    return i + take;
  }

  /** Checks a type byte the moment it arrives: an unknown type is refused without waiting for more. */
  private typeByte(code: number, chunk: Buffer, i: number): void {
    this.code = code;
    this.spec = this.specs[code];
    if (!this.spec)
      this.fail(
        { reason: `0x${code.toString(16).padStart(2, '0')} is not a ${this.direction} message type` },
        null,
        chunk.subarray(i, i + EVIDENCE_BYTES),
      );
  }

  /** A complete header: bounds the declared length, then waits for the body. */
  private begin(declared: number, buf: Buffer, at: number, out: Frame[] | null): void {
    this.declared = declared;
    // Evidence: the header and whatever follows it in this chunk (built only on failure).
    const end = at + EVIDENCE_BYTES;
    if (this.untyped) {
      if (declared < 8 || declared > MAX_STARTUP_LENGTH)
        this.fail(
          { reason: `a startup packet's length must be 8 to ${MAX_STARTUP_LENGTH}` },
          declared,
          buf.subarray(at, end),
        );
      this.keep = true;
    } else {
      const spec = this.spec!;
      const max = this.maxByCode[this.code]!;
      if (declared < 4)
        this.fail(
          { reason: 'a declared length below 4 (the length counts its own 4 bytes)' },
          declared,
          buf.subarray(at, end),
        );
      if (spec.min === spec.max && declared !== spec.min)
        this.fail(
          { reason: `this message always has length ${spec.min}`, actualLength: spec.min },
          declared,
          buf.subarray(at, end),
        );
      if (declared < spec.min)
        this.fail({ reason: `this message is at least ${spec.min} bytes long` }, declared, buf.subarray(at, end));
      if (declared > max)
        this.fail(
          { reason: `above the bound of ${max} bytes for a message of this type` },
          declared,
          buf.subarray(at, end),
        );
      this.keep = out !== null || spec.check !== undefined;
    }
    this.bodyLen = declared - 4;
    this.bodyRemaining = this.bodyLen;
    this.accHave = 0;
    // An empty body completes the message now, even at the very end of a chunk.
    if (this.bodyLen === 0) this.finish(EMPTY, 0, 0, out);
  }

  /** A complete body `buf[start, end)`: checks its content and emits the frame. */
  private finish(buf: Buffer, start: number, end: number, out: Frame[] | null): void {
    let problem: Problem | null;
    let kind: UntypedKind | undefined;
    if (this.untyped) {
      const found = startupKind(buf.readInt32BE(start), this.declared, buf, start, end);
      problem = found.problem;
      kind = found.kind;
    } else {
      problem = this.spec!.check?.(buf, start, end) ?? null;
    }
    if (problem) {
      const head = this.hdrBuf.subarray(this.hdrAt, this.hdrAt + this.headerSize());
      this.fail(
        problem,
        this.declared,
        Buffer.concat([head, buf.subarray(start, Math.min(end, start + EVIDENCE_BYTES))]),
      );
    }
    if (out) {
      const payload = buf === this.acc ? buf : buf.subarray(start, end);
      out.push(
        kind
          ? { type: '', length: this.declared, payload, kind }
          : { type: typeChar(this.code), length: this.declared, payload },
      );
    }
    if (kind === 'startup') this.untyped = false;
    if (kind === 'cancel') this.afterCancel = true;
    this.bodyRemaining = -1;
    this.acc = null;
    this.accHave = 0;
    this.hdrBuf = EMPTY;
  }

  private fail(problem: Problem, declared: number | null, bytes: Buffer): never {
    const typed = !this.untyped;
    // A client's PasswordMessage (and SASL responses) may hold a password: only its header is shown.
    const secret = typed && this.direction === 'frontend' && this.code === 0x70;
    const v: ProtocolViolation = {
      direction: this.direction,
      type: typed ? typeChar(this.code) : 'startup',
      name: typed ? (this.spec?.name ?? 'unknown message') : 'startup packet',
      declaredLength: declared,
      actualLength: problem.actualLength ?? null,
      offset: this.msgStart,
      hex: secret ? `${hexOf(bytes.subarray(0, 5))} (body withheld: it may hold a password)` : hexOf(bytes),
      reason: problem.reason,
    };
    this.failed = new ProtocolViolationError(v);
    throw this.failed;
  }
}
