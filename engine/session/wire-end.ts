/**
 * How a wire exchange ended, and what the record says about it: the end of a read turned into
 * an {@link ExchangeEnd}, the error a step gets where the exchange ended or never reached, and a
 * failed login as the coded error Session.open would throw.
 */
import { PooltestError } from '../record/errors.js';
import type { StepRecord } from '../record/step-record.js';
import type { StartupEnd } from './raw-startup.js';

/** How an exchange ended. */
export type ExchangeEnd =
  | { kind: 'complete' }
  /** Reading stopped at a COPY response: the server waits for CopyData (or the caller asked to stop). */
  | { kind: 'copy'; response: 'CopyInResponse' | 'CopyOutResponse' | 'CopyBothResponse' }
  | { kind: 'timeout'; waitedMs: number }
  | { kind: 'dropped'; how: 'reset' | 'closed' }
  | { kind: 'violation'; evidence: string; hex: string }
  | { kind: 'interrupted' }
  /** Nothing was sent: the session had already ended (why). */
  | { kind: 'unusable'; reason: string };

export function asExchangeEnd(end: StartupEnd): ExchangeEnd {
  switch (end.kind) {
    case 'timeout':
      return { kind: 'timeout', waitedMs: end.waitedMs };
    case 'violation':
      return { kind: 'violation', evidence: end.evidence, hex: end.hex };
    case 'dropped':
      return { kind: 'dropped', how: end.how };
    default:
      // A pre-3.0 error or an authentication request cannot come after login; the connection is unusable.
      return { kind: 'dropped', how: 'closed' };
  }
}

export function describeEnd(end: ExchangeEnd): string {
  switch (end.kind) {
    case 'timeout':
      return `no answer within ${end.waitedMs} ms`;
    case 'dropped':
      return end.how === 'reset' ? 'connection reset' : 'connection closed';
    case 'violation':
      return end.evidence;
    case 'interrupted':
      return 'interrupted: the run was cancelled';
    default:
      return end.kind;
  }
}

/**
 * The error recorded on the segment where the exchange ended (`here`) or on one after it,
 * which it never reached; none where reading ended as asked.
 */
export function endError(end: ExchangeEnd, waitedMs: number, here: boolean): StepRecord['error'] {
  if (end.kind === 'complete' || end.kind === 'copy') {
    if (here) return null;
    return {
      message: `not answered: reading stopped at ${end.kind === 'copy' ? end.response : 'the last ReadyForQuery asked for'}`,
    };
  }
  if (end.kind === 'violation' && here) return { code: 'PROTOCOL_VIOLATION', message: end.evidence };
  const what = end.kind === 'timeout' ? `no answer within ${waitedMs} ms` : describeEnd(end);
  return { message: here ? what : `not answered: ${what}` };
}

/** A failed login as a coded error, as Session.open throws them. */
export function loginError(end: StartupEnd, where: string, connectMs: number): PooltestError {
  switch (end.kind) {
    case 'timeout':
      return new PooltestError('STEP_TIMEOUT', `no login answer from ${where} within ${connectMs} ms`);
    case 'violation':
      return new PooltestError('PROTOCOL_VIOLATION', end.evidence, { hex: end.hex });
    case 'refused': {
      const code = end.error.code === '28P01' || end.error.code === '28000' ? 'AUTH_FAILED' : 'TARGET_REFUSED';
      return new PooltestError(code, `${where} refused the login: ${end.error.code} ${end.error.message}`, {
        sqlstate: end.error.code,
      });
    }
    case 'auth-unsupported':
      return new PooltestError(
        'AUTH_FAILED',
        `${where} asked for ${end.method}, which the wire-level client does not speak`,
      );
    case 'dropped':
      return new PooltestError(
        'TARGET_UNREACHABLE',
        `${where} ${end.how === 'reset' ? 'reset' : 'closed'} the connection during login`,
      );
    default:
      return new PooltestError('INTERNAL', `login to ${where} ended with ${end.kind}`);
  }
}
