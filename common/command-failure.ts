/**
 * How `pooltest audit` and `pooltest watch` end when they cannot run: one line on stderr with
 * the error's code, and exit code 2.
 */
import { isPooltestError, PooltestError } from '../engine/record/errors.js';
import { redactUrl } from '../engine/target/target.js';

/**
 * Writes `pooltest COMMAND: CODE: message` (an error that is not a PooltestError as INTERNAL,
 * with its stack) and returns 2, the exit code of "could not run".
 */
export function commandFailed(command: string, error: unknown, stderr: { write(text: string): unknown }): number {
  const e = isPooltestError(error)
    ? error
    : new PooltestError('INTERNAL', error instanceof Error ? (error.stack ?? error.message) : String(error));
  // Messages never carry a password by construction; the redaction is a second net.
  stderr.write(`pooltest ${command}: ${e.code}: ${redactUrl(e.message)}\n`);
  return 2;
}
