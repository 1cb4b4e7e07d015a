/**
 * Progress while `pooltest audit` reads large logs: bytes and lines read, the rate, and how far
 * through the file, on one line of stderr that rewrites itself. Only on a terminal: piped into
 * a file or a CI log it would be noise, so without a TTY nothing is written at all. Updates are
 * throttled (at most four a second) and the line is cleared at the end, so the report that
 * follows starts on a clean line.
 */

/** What a log reader reports as it goes. */
export interface ProgressSink {
  /** A new input begins; `totalBytes` is null for standard input. */
  start(name: string, totalBytes: number | null): void;
  /** Cumulative counts for the current input. */
  update(bytes: number, lines: number): void;
  /** The input is read (or reading failed): clear the line. */
  done(): void;
}

export interface ReadProgressOptions {
  write(text: string): void;
  /** Whether stderr is a terminal; false makes every method a no-op. */
  isTTY: boolean;
  /** Least time between two updates; default 250 ms (four a second). */
  intervalMs?: number;
  /** Clock in ms; injectable for tests. */
  now?(): number;
  /** Terminal width, to keep the line from wrapping; default 100. */
  columns?: number;
}

/** A progress line on a terminal, or nothing elsewhere. */
export function readProgress(opts: ReadProgressOptions): ProgressSink {
  if (!opts.isTTY) return { start() {}, update() {}, done() {} };
  const now = opts.now ?? (() => performance.now());
  const interval = opts.intervalMs ?? 250;
  const width = Math.max(20, (opts.columns ?? 100) - 1);
  let name = '';
  let total: number | null = null;
  let startedAt = 0;
  let lastAt = -Infinity;
  let shown = false;
  return {
    start(n, totalBytes) {
      name = n;
      total = totalBytes;
      startedAt = now();
      // The first line waits one interval: a small file is read before it would flash by.
      lastAt = startedAt;
    },
    update(bytes, lines) {
      const t = now();
      if (t - lastAt < interval) return;
      lastAt = t;
      shown = true;
      opts.write(`\r\x1b[K${progressText(name, bytes, lines, total, t - startedAt).slice(0, width)}`);
    },
    done() {
      if (shown) opts.write('\r\x1b[K');
      shown = false;
    },
  };
}

/** `reading app.log: 12.0 MiB of 40.0 MiB (30%), 120,345 lines, 48.0 MiB/s` */
export function progressText(
  name: string,
  bytes: number,
  lines: number,
  total: number | null,
  elapsedMs: number,
): string {
  const of = total !== null && total > 0 ? ` of ${mib(total)} (${Math.floor((bytes / total) * 100)}%)` : '';
  const rate = elapsedMs > 0 ? `, ${mib((bytes / elapsedMs) * 1000)}/s` : '';
  return `reading ${name}: ${mib(bytes)}${of}, ${lines.toLocaleString('en-US')} lines${rate}`;
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
