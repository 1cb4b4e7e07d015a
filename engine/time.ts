/** Time bounds that never keep the process alive after the work is done. */

/** Resolves with `promise`'s value, or with `fallback` after `ms`; the timer is always cleared. */
export async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]);
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
