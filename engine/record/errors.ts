/**
 * One error type for everything that stops pooltest from running, with a stable upper-snake
 * code. Codes are part of the public contract: scripts and CI match on them.
 */
export type PooltestErrorCode =
  | 'BAD_ARGUMENTS'
  | 'BAD_TARGET_URL'
  | 'TARGET_UNREACHABLE'
  | 'TARGET_REFUSED'
  | 'TARGET_FULL'
  | 'NOT_POSTGRES'
  | 'AUTH_FAILED'
  | 'DATABASE_NOT_FOUND'
  | 'TLS_FAILED'
  | 'STEP_TIMEOUT'
  | 'CONNECTION_LOST'
  /** The target broke the PostgreSQL wire protocol (a malformed message); the detail carries the bytes. */
  | 'PROTOCOL_VIOLATION'
  | 'STEERING_FAILED'
  | 'POOL_TOO_LARGE'
  | 'UNKNOWN_PROFILE'
  /** `--only` and `--skip` left no check to run (refused: a run that tests nothing must not pass). */
  | 'NO_CHECKS_SELECTED'
  | 'EXPECTATIONS_INVALID'
  | 'REPORT_INVALID'
  | 'REPORT_DUPLICATE'
  /** A stored report too old to be judged again from its record (engine/judging/rejudge-report.ts). */
  | 'REPORT_TOO_OLD'
  | 'OUTPUT_FAILED'
  | 'DOCKER_UNAVAILABLE'
  | 'FIXTURE_UNAVAILABLE'
  | 'FIXTURE_FAILED'
  | 'INTERRUPTED'
  | 'INTERNAL'
  | 'AUDIT_INPUT'
  | 'AUDIT_STATS_UNAVAILABLE'
  | 'AUDIT_STATS_PERMISSION';

/** The exit code of a run stopped by SIGINT/SIGTERM (128 + SIGINT, as shells report it). */
export const INTERRUPTED_EXIT_CODE = 130;

export class PooltestError extends Error {
  readonly code: PooltestErrorCode;
  /** Extra context safe to print (never a password). */
  readonly detail: Record<string, string | number | boolean | null>;

  constructor(code: PooltestErrorCode, message: string, detail: Record<string, string | number | boolean | null> = {}) {
    super(message);
    this.name = 'PooltestError';
    this.code = code;
    this.detail = detail;
  }
}

export function isPooltestError(e: unknown): e is PooltestError {
  return e instanceof PooltestError;
}
