/** What discovery learns about the target before the checks, as a report stores it. */
import type { StepRecord } from './step-record.js';

/** What pooltest learned about the target before the checks. */
export interface Discovery {
  /**
   * `direct`: every client has its own backend (no pooling seen); `session`: backends are
   * reused only after a client leaves; `transaction`: another client can get an idle client's
   * backend; `statement`: like transaction, and transaction blocks are refused.
   */
  mode: 'direct' | 'session' | 'transaction' | 'statement';
  /** Backends seen at once before a further client had to wait; null when no limit was met. */
  poolSize: number | null;
  /** The bound used while counting (a pool at least this big is reported as `>= bound`). */
  poolBound: number;
  /**
   * How `poolSize` was counted, for reports to say beside the number (reporters/report-text.ts):
   * the backends pooltest's own clients held at once, the other backends of this database and
   * user that stayed busy with other clients' traffic when the pool looked full (counted in, so
   * the size is an upper bound), and how the count ended: the next client `queued` or was
   * `refused`, or a recount held `as-before` as many as the first count and went no further.
   * Absent when no limit was met, and in reports written before it existed.
   */
  poolCount?: { held: number; busyElsewhere: number; end: 'queued' | 'refused' | 'as-before' };
  /** Another client got a backend while the client that last used it stayed connected. */
  sharedAcrossClients: boolean;
  /** A client's next transaction ran on the same backend although that backend was held. */
  clientKeepsBackend: boolean;
  /** A new client was given a backend a previous client had used. */
  reuseAfterDisconnect: boolean;
  transactionBlocks: 'allowed' | 'refused';
  /** How holders keep a backend busy: inside BEGIN, or with a long statement they cancel. */
  holderStrategy: 'transaction' | 'statement';
  serverVersion: string;
  serverVersionNum: number;
  pooler: { name: string; version: string | null; how: string } | null;
  /** Median round trip of a trivial query, used to size the short bounds. */
  rttMs: number;
  /** Slowest of the connections discovery opened (TLS and SCRAM included). */
  connectLatencyMs: number;
  /** How long a holder waits before concluding the pooler is queueing it. */
  waitBoundMs: number;
  notes: string[];
  /**
   * Set when the pooler refused a client at capacity (53300, "no more connections allowed")
   * instead of queueing it: how many clients it had admitted at once, and its words verbatim.
   */
  clientLimit?: { clients: number; refusal: string };
  /**
   * Set when the pooler refused the idle logins pooltest would keep ahead of need (a client limit
   * such as max_client_conn, met before any check): the refusal verbatim. The run keeps none.
   */
  spareRoomRefused?: string;
  /**
   * Present when the target broke the wire protocol on a connection that served only an
   * optional probe (identifying the pooler, looking for a dead run's leftovers, counting idle
   * logins): a finding about the pooler, and discovery went on without that probe. A violation
   * on the clients the pool count rests on still stops discovery (PROTOCOL_VIOLATION).
   */
  wireFindings?: WireFinding[];
  steps: StepRecord[];
}

/** A malformed message on an optional probe's connection, with the evidence (engine/discovery/probes.ts). */
export interface WireFinding {
  /** The probe: the tag of its steps (`discovery.identify`). */
  probe: string;
  /** The session label of the connection that received it (`admin`, `D`, `R3`). */
  session: string;
  /** What that connection was for, in words. */
  connection: string;
  /** `backend`: the target sent it. */
  direction: 'backend' | 'frontend';
  /** The type byte as a character (`E`), or an escape such as `\x00`; `startup` for an untyped packet. */
  type: string;
  /** The message's name (`ErrorResponse`), or `unknown message`. */
  name: string;
  /** The length the message declares, when it got that far. */
  declaredLength: number | null;
  /** The length its bytes call for or deliver, when it differs and is known. */
  actualLength: number | null;
  /** Byte offset of the message in that connection's stream; null when not known. */
  offset: number | null;
  /** Up to 64 bytes from the message's start, as spaced hex. */
  hex: string;
  /** What is wrong, in one sentence. */
  reason: string;
  /** What discovery did without the probe (`the pooler is not identified`). */
  consequence: string;
}
