/**
 * The shared vocabulary of pooltest: what a step records, what a check concludes, what
 * discovery learns and what a report contains. The JSON report is built from these types, so
 * changing a field here is changing the public contract (see `REPORT_SCHEMA_VERSION`).
 */

import type { ExpectationBasis } from './profile.js';

/** Bumped whenever a field of {@link Report} changes meaning or disappears. */
export const REPORT_SCHEMA_VERSION = 2;

/** How bad it is when the hazard bites: the grouping used by reports. */
export type Severity = 'security' | 'correctness' | 'availability';

/**
 * `pass`/`fail` against an expectation, `observed` when nothing was expected (schema 2; schema 1
 * called that `pass`), `inconclusive`, `skipped`. Combining: fail > inconclusive > pass > observed.
 */
export type Verdict = 'pass' | 'fail' | 'observed' | 'inconclusive' | 'skipped';

/** A NOTICE, WARNING or similar message the server or pooler sent while a step ran. */
export interface NoticeRecord {
  severity: string;
  code?: string;
  message: string;
}

/** A NOTIFY delivered to a session while a step ran (or while it sat idle before it). */
export interface NotificationRecord {
  channel: string;
  payload: string;
  /** pid of the backend that sent it, as the protocol reports it. */
  senderPid: number;
}

/** A Postgres or pooler error, kept verbatim. Client-side errors have no `code`. */
export interface ErrorRecord {
  code?: string;
  severity?: string;
  message: string;
}

/** One round trip of one session: the unit of evidence. */
export interface StepRecord {
  /** Order of the step in its check, starting at 1. */
  seq: number;
  /** Session label: A, B, C..., or H1, H2 for holders, O1, O2 for observers. */
  session: string;
  /** What the step is for in the scenario (`A.create`, `observe.take`...): judges look steps up by tag. */
  tag: string;
  sql: string;
  /** `pg_backend_pid()` of the backend that ran the step, when the step read it. */
  pid: number | null;
  /** Rows of each statement of the step, in order (a step may send several statements). */
  results: Array<Array<Record<string, unknown>>>;
  error: ErrorRecord | null;
  notices: NoticeRecord[];
  notifications: NotificationRecord[];
  /** Milliseconds since the check started. */
  startMs: number;
  durationMs: number;
  /** `waited`: the step did not get an answer within its bound (a pooler queueing it). */
  timedOut: boolean;
  /** Transaction status after the step: I idle, T in transaction, E failed transaction. */
  txStatus: string | null;
}

/** Facts behind an outcome label, as short named booleans, numbers or strings. */
export type Facts = Record<string, boolean | number | string | null>;

/**
 * What a judge concludes from a recorded scenario: one of three (as Jepsen's valid / unknown),
 * typed by the check's own labels (`Label`, the keys of its `outcomes`):
 * - a label, with the facts behind it and a short statement of what was seen;
 * - unknown (`outcome: null`): the record supports no label, and `reason` says why
 *   (the check is inconclusive);
 * - skipped (`outcome: null, skipped: true`): the record shows the check cannot apply to this
 *   target (for example the login may not `SET ROLE` to any role), and `reason` says why. Only
 *   for what a scenario had to query to find out; what the run context shows belongs in `skipIf`.
 */
export type Judgement<Label extends string = string> = Labelled<Label> | Unknown | Skipped;

interface JudgementBase {
  facts: Facts;
  /** Why the judgement is inconclusive or skipped, or a short statement of what was seen. */
  reason: string;
}

/** The record reads as one of the check's labels. */
export interface Labelled<Label extends string = string> extends JudgementBase {
  outcome: Label;
  skipped?: false;
}

/** The record supports no label: inconclusive, with its reason. */
export interface Unknown extends JudgementBase {
  outcome: null;
  skipped?: false;
}

/** The check cannot apply to this target, as its record shows. */
export interface Skipped extends JudgementBase {
  outcome: null;
  skipped: true;
}

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

/** A malformed message on an optional probe's connection, with the evidence (engine/discovery-probes.ts). */
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

/** The result of one check in one run. */
export interface CheckResult {
  id: string;
  title: string;
  severity: Severity;
  outcome: string | null;
  expected: string | null;
  expectedRef: string | null;
  /** How the expectation is known (see ExpectationBasis); absent in reports older than this field. */
  expectedBasis?: ExpectationBasis | null;
  verdict: Verdict;
  /** Why the verdict is what it is (the judge's reason, or why the check was skipped). */
  reason: string;
  facts: Facts;
  /** One line of evidence for the terminal table. */
  evidence: string;
  advice: string | null;
  steps: StepRecord[];
  durationMs: number;
  /** Statements sent to the target, holders and cleanup included. */
  statements: number;
  cleanup: { ok: boolean; detail: string };
}

/** A target as it may be shown or stored: never a password. */
export interface PublicTarget {
  host: string;
  port: number;
  user: string;
  database: string;
  ssl: string;
}

/** Result of the sweep that proves a run left nothing behind. */
/**
 * What the sweep could establish: `clean` (every backend visited, nothing found), `dirty`
 * (something of this run's was found, and removed where it could be), or `unknown` (it could
 * not look: the target or --direct unreachable, a backend never reached). Only `dirty` is
 * pooltest's own failure; `unknown` says why in `reason`.
 */
export type SweepState = 'clean' | 'dirty' | 'unknown';

export interface SweepResult {
  /** `state === 'clean'`; kept for readers of reports written before `state` existed. */
  clean: boolean;
  /** Absent only in reports written before it existed: read it with `sweepState`. */
  state?: SweepState;
  /** Why the sweep could not tell (state `unknown`), or why it is not sure. */
  reason?: string;
  backendsVisited: number[];
  /** What was found: state of this run's that was still there (and was removed). */
  leftovers: string[];
  via: string[];
  /**
   * Session settings the pooler itself left on its server connections and the sweep reset:
   * the run's own application_name, which PgBouncer shows to any later client that sends
   * none (see sweep.ts). Routine, not a leftover; absent when there was nothing to reset.
   */
  restored?: string[];
}

/** A sweep's state, also for reports written before `state` existed (`clean` true or false). */
export function sweepState(s: SweepResult): SweepState {
  return s.state ?? (s.clean ? 'clean' : 'dirty');
}

export interface ReportSummary {
  total: number;
  /** Checks whose outcome matched an expectation (never a mere observation). */
  pass: number;
  fail: number;
  /** Checks with an outcome and no expectation. */
  observed: number;
  inconclusive: number;
  skipped: number;
  /** Whether `--strict` was on: inconclusive checks and an unfinished sweep then set exit 1. */
  strict: boolean;
  exitCode: number;
  /** SIGINT/SIGTERM stopped the run: what did not run says so, and exitCode is 130. */
  interrupted?: boolean;
}

/** The machine contract: what `--json` writes. */
export interface Report {
  schemaVersion: number;
  tool: { name: 'pooltest'; version: string };
  runId: string;
  startedAt: string;
  durationMs: number;
  target: PublicTarget;
  direct: PublicTarget | null;
  discovery: Omit<Discovery, 'steps'> & { steps?: StepRecord[] };
  profile: { name: string; title: string; ref: string } | null;
  checks: CheckResult[];
  sweep: SweepResult | null;
  summary: ReportSummary;
}
