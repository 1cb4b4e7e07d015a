/**
 * Traffic the protocol-level checks concern (issue 38), as the watch sees it on the wire and the
 * audit in a statement log: a COPY's sub-protocol, pipelined rounds, a named statement parsed
 * inside a pipeline, an error or a disconnect with more rounds in flight, a Close of a named
 * statement. None of it is session state left for a later transaction (the watch's and the
 * audit's findings); it is traffic that works through a pooler only where the pooler relays it
 * right, which those checks measure.
 *
 * The watch and the audit take the checks' ids from here, and this file from the check
 * definitions. A check id the watch's catalogue lacks (a build without one of them) is said
 * beside the traffic (`checkInCatalogue`).
 */
import { child, nodeType, text } from '../common/ast-json.js';
import type { AstNode } from '../common/sql-parser.js';
import { inOut } from '../suites/copy/in-out.check.js';
import { disconnect } from '../suites/pipeline/disconnect.check.js';
import { error } from '../suites/pipeline/error.check.js';
import { prepared } from '../suites/pipeline/prepared.check.js';
import { transactions } from '../suites/pipeline/transactions.check.js';
import { close } from '../suites/prepared/close.check.js';

/** The protocol checks traffic is joined with, by what they cover. */
export const PROTOCOL_CHECKS = {
  copy: inOut.id,
  pipelineTransactions: transactions.id,
  pipelinePrepared: prepared.id,
  pipelineError: error.id,
  pipelineDisconnect: disconnect.id,
  close: close.id,
} as const;

export type ProtocolCheckId = (typeof PROTOCOL_CHECKS)[keyof typeof PROTOCOL_CHECKS];

export type TrafficKind =
  | 'copy-in'
  | 'copy-out'
  | 'copy-fail'
  | 'pipeline'
  | 'pipeline-prepared'
  | 'pipeline-error'
  | 'pipeline-disconnect'
  | 'close';

export interface TrafficMeaning {
  check: ProtocolCheckId;
  /** The traffic, short: what a report's line starts with. */
  what: string;
  /** What the pooler must do for it to work, in a sentence. */
  depends: string;
  advice: string;
}

/** What each kind of traffic depends on, and what to do about it. */
export const TRAFFIC: Readonly<Record<TrafficKind, TrafficMeaning>> = {
  'copy-in': {
    check: PROTOCOL_CHECKS.copy,
    what: 'COPY FROM STDIN',
    depends:
      "the rows follow the statement as CopyData and end with CopyDone or CopyFail: the pooler must relay them to the same backend and release it only once the server's answer is in",
    advice:
      'Keep it where copy/in-out shows the pooler relays COPY whole (in and outside a transaction block); otherwise run it on a direct connection.',
  },
  'copy-out': {
    check: PROTOCOL_CHECKS.copy,
    what: 'COPY TO STDOUT',
    depends:
      'the rows come back as CopyData before CommandComplete: the pooler must relay all of them before it hands the backend to another client',
    advice: 'Keep it where copy/in-out shows the pooler relays COPY whole; otherwise run it on a direct connection.',
  },
  'copy-fail': {
    check: PROTOCOL_CHECKS.copy,
    what: 'CopyFail',
    depends:
      'the client abandoned a COPY FROM STDIN: the server answers with an error, and a pooler that does not expect it keeps the backend pinned or half-used',
    advice: 'Check copy/in-out on your pooler: a backend kept after a CopyFail is lost to the pool until it is closed.',
  },
  pipeline: {
    check: PROTOCOL_CHECKS.pipelineTransactions,
    what: 'pipelined rounds',
    depends:
      'the client sent a Sync before the previous one was answered: each implicit transaction must run wholly on one backend and the answers must come back in order',
    advice:
      "Check pipeline/transactions on your pooler; where it fails, turn the driver's pipeline or batch mode off for connections through it.",
  },
  'pipeline-prepared': {
    check: PROTOCOL_CHECKS.pipelinePrepared,
    what: 'named statement parsed in a pipeline',
    depends:
      'a statement cache parses a named statement inside a pipeline and binds it in later rounds: the pooler must have it prepared on every backend a later round runs on',
    advice:
      'Needs a pooler that tracks protocol-level prepared statements (PgBouncer 1.21 and later with max_prepared_statements > 0; Odyssey pool_reserve_prepared_statement); check pipeline/prepared.',
  },
  'pipeline-error': {
    check: PROTOCOL_CHECKS.pipelineError,
    what: 'error with more pipelined rounds in flight',
    depends:
      'the server skips to the next Sync and answers the rounds after it: the pooler must deliver those answers, or the client waits for them forever',
    advice:
      'Check pipeline/error on your pooler: a pipeline that stalls after an error needs the driver to leave pipeline mode.',
  },
  'pipeline-disconnect': {
    check: PROTOCOL_CHECKS.pipelineDisconnect,
    what: 'disconnect with pipelined rounds unanswered',
    depends:
      'the client left before the answers to its pipeline came: the pooler must not hand that backend, mid-pipeline, to the next client',
    advice: 'Check pipeline/disconnect on your pooler before relying on it after client crashes or timeouts.',
  },
  close: {
    check: PROTOCOL_CHECKS.close,
    what: 'Close of a named statement',
    depends:
      'a pooler that renames statements (PgBouncer PGBOUNCER_n, Odyssey odyssey_pstmt_n) must close the one the client means and let it parse the same name again with other text',
    advice: 'Check prepared/close on your pooler; where it fails, give a re-prepared statement a new name.',
  },
};

/** Which COPY a statement is where its data travels on the wire: FROM STDIN, TO STDOUT, or null. */
export function copyTrafficOf(wrapper: AstNode): 'copy-in' | 'copy-out' | null {
  if (nodeType(wrapper) !== 'CopyStmt') return null;
  const stmt = child(wrapper, 'CopyStmt');
  // A file or a program: the server reads or writes it itself, nothing crosses the pooler.
  if (text(stmt, 'filename') !== null || stmt?.['is_program'] === true) return null;
  return stmt?.['is_from'] === true ? 'copy-in' : 'copy-out';
}
