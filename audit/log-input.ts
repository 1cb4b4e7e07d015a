/**
 * `--log FILE`: a PostgreSQL server log, streamed chunk by chunk so a multi-gigabyte log runs
 * in the same memory as a small one. `-` reads standard input (`zcat log.gz | pooltest audit
 * --log -`). Statements keep the line their log entry starts on as their source. A large log
 * file is read by several threads, one part each (log-parallel.ts).
 */
import { stat } from 'node:fs/promises';
import { PooltestError } from '../engine/record/errors.js';
import type { AuditCollector } from './audit-collector.js';
import type { InputSummary } from './audit-types.js';
import { fileChunks } from './file-chunks.js';
import { fileError } from './input-checks.js';
import { LineSplitter } from './line-splitter.js';
import { auditLogParallel, workersFor } from './log-parallel.js';
import type { ProgressSink } from './read-progress.js';
import { LogState, logResult, type LogStateOptions } from './log-state.js';

/** How to read one log. */
export interface LogInputOptions extends LogStateOptions {
  /** Used for `-`; defaults to process.stdin. */
  stdin?: NodeJS.ReadableStream;
  /** Told how far the read has got (audit/read-progress.ts). */
  progress?: ProgressSink;
  /** Threads reading a log file (log-parallel.ts); by default one per core for a large file. */
  jobs?: number;
  /** Bytes per read; CHUNK_BYTES unless a test wants statements to cross reads. */
  chunkBytes?: number;
}

/** Enough to see a binary file for what it is before reading it line by line. */
export const BINARY_SNIFF_BYTES = 64 * 1024;
export const CHUNK_BYTES = 1024 * 1024;

/** Streams one log into the collector; returns its summary and any warnings. */
export async function auditLogFile(
  path: string,
  collector: AuditCollector,
  opts: LogInputOptions,
): Promise<{ summary: InputSummary; warnings: string[] }> {
  let totalBytes: number | null = null;
  if (path !== '-') {
    try {
      const info = await stat(path);
      if (info.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
      totalBytes = info.size;
    } catch (error) {
      throw fileError(path, error, '--log');
    }
  }
  const name = path === '-' ? 'stdin' : path;
  const jobs = totalBytes === null ? 1 : workersFor(opts.jobs, totalBytes);
  if (jobs > 1) {
    const result = await auditLogParallel(path, collector, opts, jobs, totalBytes!);
    if (result !== null) return result;
  }
  const state = new LogState(name, collector, opts);
  // To the end of the file as it is when read: a log still being written is read to its end.
  const stream =
    path === '-' ? (opts.stdin ?? process.stdin) : fileChunks(path, 0, Infinity, opts.chunkBytes ?? CHUNK_BYTES);
  opts.progress?.start(name, totalBytes);
  try {
    await readLogStream(stream, state, name, opts.maxStatementBytes, { sniff: true, linesBefore: 0 }, (bytes, lines) =>
      opts.progress?.update(bytes, lines),
    );
  } finally {
    opts.progress?.done();
  }
  return logResult(name, state.counts, opts.format);
}

/**
 * Feeds `stream` line by line to `state`, then ends it. `sniff` refuses a binary file by its
 * first bytes (only the part that starts the file can tell); `linesBefore` numbers the lines of
 * a part of a file as the file's. Errors other than PooltestErrors are reported as errors
 * reading `name`; the stream is destroyed in any case.
 */
export async function readLogStream(
  stream: NodeJS.ReadableStream | AsyncIterable<Buffer>,
  state: LogState,
  name: string,
  maxStatementBytes: number,
  part: { sniff: boolean; linesBefore: number },
  onProgress: (bytes: number, lines: number) => void,
): Promise<void> {
  let lines = 0;
  let bytesRead = 0;
  const splitter = new LineSplitter(
    maxStatementBytes,
    (line) => {
      lines++;
      state.line(line);
    },
    part.linesBefore,
  );
  let first = part.sniff;
  try {
    for await (const chunk of stream) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      if (first) {
        first = false;
        const nul = bytes.subarray(0, BINARY_SNIFF_BYTES).indexOf(0);
        if (nul !== -1) throw binaryLog(name, nul);
      }
      splitter.push(bytes);
      bytesRead += bytes.length;
      onProgress(bytesRead, lines);
    }
    splitter.end();
    state.end();
  } catch (error) {
    if (error instanceof PooltestError) throw error;
    throw fileError(name, error, '--log');
  } finally {
    if ('destroy' in stream && typeof stream.destroy === 'function' && stream !== process.stdin) stream.destroy();
  }
}

/** The error for a file whose first bytes hold a NUL. */
export function binaryLog(name: string, offset: number): PooltestError {
  return new PooltestError(
    'AUDIT_INPUT',
    `--log ${name}: looks binary (NUL byte at offset ${offset}); not a PostgreSQL log`,
    { file: name, offset },
  );
}
