/**
 * The vocabulary of `pooltest audit`: what the classifier finds in one statement, what the
 * audit reports per finding, and the shape of the JSON it writes. `AuditReport` is a public
 * contract like the check report: scripts gate migrations on it.
 */
import type { ProtocolCheckId } from './protocol-traffic.js';
import type { FindingDriver } from './driver-attribution.js';
import type { CheckId } from '../suites/labels.js';

/** Bumped whenever a field of {@link AuditReport} changes meaning or disappears. */
export const AUDIT_SCHEMA_VERSION = 2;

/**
 * Check ids a finding can name: ids of the catalogue (derived from the check files, so a typo
 * is a compile error); at run time only checks that declare an `audit` hint are used.
 */
export type AuditCheckId = CheckId;

/** One use of session state found inside a statement. */
export interface Hazard {
  check: AuditCheckId;
  /** What was found, short: `SET statement_timeout`, `pg_advisory_lock()`, `DO block: LISTEN`. */
  what: string;
  /**
   * False when the parser could not settle it, for example `set_config(name, value, $3)` as
   * pg_stat_statements shows it: counted as session-level because it may be.
   */
  certain: boolean;
  /**
   * The statement undoes this check's state (`RESET`, `DEALLOCATE`, `UNLISTEN`,
   * `pg_advisory_unlock*`, `DISCARD`): the cleanup half of a pattern, never a break of its own.
   */
  cleanup?: boolean;
}

/** What the classifier makes of one statement. */
export interface StatementAnalysis {
  /** Primary first; empty when the statement relies on no session state. */
  hazards: Hazard[];
  /** Set when part of the statement could not be analysed (a PL/pgSQL body that fails). */
  problem: string | null;
}

/** `true` breaks, `false` fine, `'unknown'` the pooler's behaviour is not known for this check. */
export type Breaks = boolean | 'unknown';

/** Where the pooler behaviour joined to the findings comes from. */
export type BehaviourBasis = 'report' | 'target' | 'typical';

/** One statement (grouped by its normalized form) that relies on session state. */
export interface AuditFinding {
  /** The most specific check the statement depends on. */
  check: AuditCheckId;
  title: string;
  /** The first occurrence's text, as written. */
  statement: string;
  /** The parser's normalized form (constants as `$n`): the grouping key. */
  normalized: string;
  what: string;
  certain: boolean;
  /** Other checks the same statement also depends on. */
  alsoChecks: AuditCheckId[];
  /**
   * Occurrences: statements in files, entries in logs, `calls` in pg_stat_statements. For a
   * driver's named protocol statement: `execute` lines of it (0 when only its `parse`
   * or `bind` lines were logged).
   */
  count: number;
  /** The first place it was seen: `file.sql:12`, `postgresql.log:345`, `pg_stat_statements ...`. */
  source: string;
  /** Up to a few places it was seen, first one first. */
  sources: string[];
  /** What the pooler does in this check (`leaked`, `lost`...), or null when unknown. */
  outcome: string | null;
  /**
   * The setting whose own outcome `outcome` is (lower-case), for a check that judges settings
   * one by one (`session/tracked-parameter`: `timezone`); null when it is the check's outcome.
   */
  parameter: string | null;
  basis: BehaviourBasis;
  breaks: Breaks;
  advice: string;
  /**
   * A named protocol statement's driver, by its name (audit/driver-attribution.ts), with that
   * driver's outcomes on the pooler when a drivers run is at hand. Absent otherwise.
   */
  driver?: FindingDriver;
}

/**
 * A statement that undoes session state (`RESET ROLE`, `DEALLOCATE`, `UNLISTEN`, an unlock,
 * `DISCARD ALL`): reported beside the findings it cleans up after, never counted as a break.
 */
export interface AuditCleanup {
  /** The checks whose state it undoes (every session-state check for `DISCARD ALL`). */
  undoes: AuditCheckId[];
  what: string;
  statement: string;
  normalized: string;
  count: number;
  source: string;
  sources: string[];
  /** Whether a finding of one of `undoes` was seen too (else it cleans up after nothing found). */
  paired: boolean;
}

/** A statement the parser refused, kept with where it came from. */
export interface UnparsedSample {
  statement: string;
  source: string;
  error: string;
  count: number;
}

/** Statements the audit could not classify: never dropped silently. */
export interface UnparsedSummary {
  /** Occurrences that did not parse (or were too long to parse). */
  count: number;
  /** Distinct texts among them (exact while under the sample bound). */
  distinct: number;
  samples: UnparsedSample[];
}

/** What each input contributed. */
export interface InputSummary {
  kind: 'sql' | 'log' | 'stats';
  /** File path, `-` for stdin, or the redacted stats URL. */
  name: string;
  statements: number;
  /** Log format used, for logs. */
  format?: string;
  /** Extended-protocol executions of named prepared statements seen in a log. */
  namedProtocolExecutions?: number;
  /** Lines that were not valid UTF-8 (decoded with replacement characters). */
  invalidUtf8Lines?: number;
  /** psql meta-commands (`\connect`...) skipped in an SQL file. */
  metaCommands?: number;
}

/** The pooler whose behaviour the findings are joined with. */
export interface PoolerSummary {
  basis: BehaviourBasis;
  /** Report file, redacted target, or the name of the typical behaviour. */
  name: string;
  /** Outcomes per check as used for the join. */
  outcomes: Record<string, string | null>;
  /** For checks that judge settings one by one: outcome per setting (lower-case), as used for the join. */
  parameters: Record<string, Record<string, string | null>>;
}

/** The result of {@link audit}: what `--json` writes. */
export interface AuditReport {
  schemaVersion: number;
  tool: { name: 'pooltest'; command: 'audit' };
  generatedAt: string;
  inputs: InputSummary[];
  pooler: PoolerSummary;
  summary: {
    /** Statement occurrences examined (calls for pg_stat_statements). */
    statements: number;
    /**
     * Texts handed to the parser: one per SQL file (a file is parsed whole) and one per distinct
     * log or pg_stat_statements text (repeats come from the cache). Not a count of statements.
     */
    parsedTexts: number;
    findings: number;
    /** Distinct cleanup statements (see {@link AuditCleanup}); never breaking. */
    cleanups: number;
    breaking: number;
    /** Occurrences of statements that break on this pooler. */
    breakingCount: number;
    unparsed: number;
    durationMs: number;
  };
  findings: AuditFinding[];
  cleanups: AuditCleanup[];
  /** Findings per check beyond the kept ones (bounded memory): counted, not listed. */
  overflow: Record<string, number>;
  unparsed: UnparsedSummary;
  warnings: string[];
  /**
   * COPY FROM STDIN / TO STDOUT seen in the input: traffic a protocol check concerns (the
   * check ids are kept in protocol-traffic.ts). Absent in reports written before the audit
   * recognised it; audit --merge adds up the merged reports' entries.
   */
  traffic?: AuditTraffic[];
}

/** One COPY statement (by text) whose data crosses the pooler, with the check it depends on. */
export interface AuditTraffic {
  check: ProtocolCheckId;
  /** False while the check is not in this build's catalogue (it is written on another branch). */
  checkInCatalogue: boolean;
  kind: 'copy-in' | 'copy-out';
  what: string;
  statement: string;
  count: number;
  source: string;
  sources: string[];
  depends: string;
  advice: string;
}
