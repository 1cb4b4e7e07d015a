import { PooltestError } from './errors.js';

/** Time bounds that never keep the process alive after the work is done. */

/** Resolves with `promise`'s value, or with `fallback` after `ms`; the timer is always cleared. */
export async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A promise that resolves with `value` once `signal` aborts (never, without a signal), and the
 * function that detaches it, so a long-lived signal does not collect one listener per step.
 */
export function onAbort<T>(signal: AbortSignal | undefined, value: T): { promise: Promise<T>; dispose(): void } {
  if (!signal) return { promise: new Promise<T>(() => undefined), dispose: () => undefined };
  if (signal.aborted) return { promise: Promise.resolve(value), dispose: () => undefined };
  let listener: (() => void) | undefined;
  const promise = new Promise<T>((resolve) => {
    listener = () => resolve(value);
    signal.addEventListener('abort', listener, { once: true });
  });
  return { promise, dispose: () => listener && signal.removeEventListener('abort', listener) };
}

/**
 * The one reading of a duration for every command: `10s`, `2500ms` or a number of seconds, as
 * `pooltest --timeout` and `POOLTEST_TIMEOUT` take it; between 100 ms and an hour.
 */
export function parseDuration(text: string, flag = '--timeout'): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text.trim());
  if (!m) throw new PooltestError('BAD_ARGUMENTS', `${flag} "${text}" is not a duration like 10s or 2500ms`);
  const ms = m[2] === 'ms' ? Number(m[1]) : Number(m[1]) * 1000;
  if (ms < 100 || ms > 3_600_000)
    throw new PooltestError('BAD_ARGUMENTS', `${flag} must be between 100ms and 1h, not "${text}"`);
  return Math.round(ms);
}

/**
 * A duration for the flags whose bare numbers once meant milliseconds (`audit --timeout`,
 * `drivers --timeout`, `watch --connect-timeout`), while the main command's mean seconds: there
 * the unit must be written, so that `--timeout 5` is never read as 5 ms by one command and 5 s by
 * another. Otherwise as {@link parseDuration}.
 */
export function parseDurationWithUnit(text: string, flag: string): number {
  if (/^\d+(?:\.\d+)?$/.test(text.trim()))
    throw new PooltestError(
      'BAD_ARGUMENTS',
      `${flag} "${text}" needs a unit: ${text.trim()}ms or ${text.trim()}s (a bare number meant milliseconds here and means seconds in pooltest --timeout, so neither is assumed)`,
    );
  return parseDuration(text, flag);
}
