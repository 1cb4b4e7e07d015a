/**
 * The vocabulary of `pooltest watch`: the kinds of session state it follows, the dependencies
 * it finds between transactions of one connection, and the JSON report it writes (a public
 * contract like the audit's; docs/watch.md documents every field).
 */
import type { AuditCheckId, BehaviourBasis, Breaks, PoolerSummary } from '../audit/audit-types.js';
import type { WatchTraffic } from './traffic-collector.js';
import type { TrafficKind } from '../audit/protocol-traffic.js';

export type { WatchTraffic } from './traffic-collector.js';

/** Bumped whenever a field of {@link WatchReport} changes meaning or disappears. */
export const WATCH_SCHEMA_VERSION = 2;

/**
 * How sure the watch is that a finding breaks through a transaction pooler: `seen` when a later
 * transaction of the connection relied on the state in this run, `would-break` when nothing
 * used it later but the state outlived its transaction, which breaks by itself (a LISTEN, a
 * named statement).
 */
export type WatchEvidence = 'seen' | 'would-break';

/**
 * The checks a watch finding can name: the audit's, which are every check of the catalogue (at
 * run time, those whose claims the watch recognises, the protocol's named statement among them).
 */
export type WatchCheckId = AuditCheckId;

/** Session state the watch follows, each with its own namespace of keys. */
export type StateKind = 'guc' | 'prepared' | 'cursor' | 'temp' | 'listen' | 'lock' | 'sequence';

/** One statement as the report shows it. */
export interface WatchStatement {
  /** The SQL as sent (cut at a few KB), or a protocol message such as `Bind to statement "s1"`. */
  sql: string;
  /** What in it matters: `SET search_path`, `pg_advisory_unlock(42)`, `LISTEN jobs`. */
  what: string;
  /** Ordinal of the transaction on its connection (1-based). */
  transaction: number;
}

/** The connection a dependency was seen on. */
export interface WatchConnection {
  /** Proxy-assigned ordinal (1-based). */
  id: number;
  applicationName: string | null;
  user: string | null;
  database: string | null;
  /** The client's TCP port on loopback, to find it in the application's own logs. */
  clientPort: number;
}

/** A cross-transaction dependency: state one transaction left, a later one relied on. */
export interface WatchFinding {
  check: WatchCheckId;
  title: string;
  severity: string;
  /** The state itself: `search_path`, `prepared statement s1`, `advisory lock 42`. */
  state: string;
  created: WatchStatement;
  /** The first later statement that relied on it; null when none did (`evidence` `would-break`). */
  used: WatchStatement | null;
  /**
   * `explicit`: the later statement names the state (EXECUTE, FETCH, currval, the unlock, a
   * notification for the channel); `implicit`: its meaning depends on it (an unqualified name
   * under search_path, now() under TimeZone, anything under a held lock); `none`: nothing used it.
   */
  use: 'explicit' | 'implicit' | 'none';
  /** Whether the dependency was seen in this run or would break without being exercised. */
  evidence: WatchEvidence;
  /** How it breaks through a transaction pooler, in a sentence. */
  how: string;
  /** False when the creation was inferred (a serial default's nextval, a non-literal is_local). */
  certain: boolean;
  /** The first connection it was seen on. */
  connection: WatchConnection;
  /** Times this state was left by this statement (same text, any connection). */
  count: number;
  /** Distinct connections it was seen on. */
  connections: number;
  /** Those connections' ids, in the order first seen (at most 100 listed). */
  connectionIds: number[];
  outcome: string | null;
  /** The setting whose own outcome `outcome` is (lower-case), or null when it is the check's. */
  parameter: string | null;
  basis: BehaviourBasis;
  breaks: Breaks;
  advice: string;
}

/** The result of a watch: what `--json` writes. */
export interface WatchReport {
  schemaVersion: number;
  tool: { name: 'pooltest'; command: 'watch' };
  generatedAt: string;
  /** The upstream, never with a password. */
  upstream: string;
  /** Where the proxy listened. */
  listen: string;
  /** The command run under the watch, with its exit code (null: killed by `signal`). */
  command: { argv: string[]; exitCode: number | null; signal: string | null } | null;
  pooler: PoolerSummary;
  summary: {
    connections: number;
    transactions: number;
    statements: number;
    /**
     * Connections (past their StartupMessage) the upstream sent nothing to: it could not be
     * reached, or it closed at once. Their traffic was never seen, so no finding about them
     * is possible: more than 0 means the report is not a clean result.
     */
    unanswered: number;
    /** Distinct texts handed to the parser. */
    parsedTexts: number;
    findings: number;
    breaking: number;
    durationMs: number;
  };
  findings: WatchFinding[];
  /** Findings beyond the kept bound, per check: counted, not listed. */
  overflow: Record<string, number>;
  /** Malformed traffic, unparsed statements, state caps reached: never silent. */
  warnings: string[];
  /**
   * Traffic the protocol checks concern (a COPY, pipelined rounds, a Close of a named
   * statement): not state left for a later transaction, but traffic a pooler must relay right.
   * Absent in reports written before the watch followed it.
   */
  traffic?: WatchTraffic[];
  /** Traffic entries beyond the kept bound, per kind. */
  trafficOverflow?: Partial<Record<TrafficKind, number>>;
}
