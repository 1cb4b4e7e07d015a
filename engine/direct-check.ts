/**
 * `--direct` is checked before anything else runs: it is used only by the sweep at the end and
 * by a few checks, so a mistyped host or password would otherwise surface after the whole run,
 * as a sweep that could not look. One bounded connection and `SELECT 1`, then closed.
 */
import { connectClient } from './session/connect.js';
import { APPLICATION_NAME } from './session/session.js';
import { PooltestError } from './errors.js';
import { describeTarget, type Target } from './target.js';
import { within } from './time.js';

/** Throws a coded error naming `--direct` when it cannot be reached or logged into. */
export async function checkDirect(
  direct: Target,
  bounds: { connectMs: number; stepMs: number },
  signal?: AbortSignal,
): Promise<void> {
  if (signal?.aborted)
    throw new PooltestError('INTERRUPTED', 'interrupted before discovery; nothing to clean up on the target');
  let client;
  try {
    client = await connectClient(direct, bounds.connectMs, APPLICATION_NAME);
  } catch (err) {
    // Keep the classified code (TARGET_REFUSED, AUTH_FAILED...): only the message names the flag.
    if (err instanceof PooltestError) throw new PooltestError(err.code, `--direct: ${err.message}`, err.detail);
    throw err;
  }
  try {
    const answer = await within(
      client.query('SELECT 1 AS one').then(
        () => 'ok' as const,
        (e: Error) => e,
      ),
      bounds.stepMs,
      'timeout' as const,
    );
    if (answer === 'timeout')
      throw new PooltestError(
        'STEP_TIMEOUT',
        `--direct: ${describeTarget(direct)} did not answer SELECT 1 within ${bounds.stepMs} ms`,
      );
    if (answer instanceof Error)
      throw new PooltestError(
        'NOT_POSTGRES',
        `--direct: ${describeTarget(direct)} refused SELECT 1: ${answer.message}`,
      );
  } finally {
    await within(
      client.end().catch(() => undefined),
      500,
      undefined,
    );
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }
}
