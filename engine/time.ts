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

/** `10s`, `2500ms` or a number of seconds, as `--timeout` and `POOLTEST_TIMEOUT` take it. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text.trim());
  if (!m) throw new PooltestError('BAD_ARGUMENTS', `--timeout "${text}" is not a duration like 10s or 2500ms`);
  const ms = m[2] === 'ms' ? Number(m[1]) : Number(m[1]) * 1000;
  if (ms < 100 || ms > 3_600_000)
    throw new PooltestError('BAD_ARGUMENTS', `--timeout must be between 100ms and 1h, not "${text}"`);
  return Math.round(ms);
}
