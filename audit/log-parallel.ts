/**
 * A large log file read by several threads, one part each, so that both cores of a small
 * machine (or all of a large one) work on it. The file is cut where a log entry starts (a line
 * that does not continue the one before: in the stderr format, one not starting with a tab;
 * in jsonlog, any line), so each part reads exactly the entries one reader would have seen.
 * Each worker classifies its part into a collector of its own; the parts are added to the main
 * collector in file order (AuditCollector.absorb), which keeps findings, their counts, first
 * sources and order as one reader would have made them. Sources keep the file's line numbers.
 *
 * Not parallel: standard input (one pass only) and csvlog (a quoted field may hold newlines,
 * so a line start is no proof of an entry start).
 *
 * The main thread reads the first part itself, straight into the main collector (which is what
 * one reader would have done with it), so `jobs` threads in all do the reading. Its part is
 * longer than the workers' by what it reads while they start (see {@link cutNear}). Workers start
 * loading the parser at once and count the lines before their part themselves (for the file's
 * line numbers), so no thread waits on another.
 *
 * The default (see {@link workersFor}): a log file of PARALLEL_MIN_BYTES or more is read with
 * as many threads as the machine has cores. Each extra thread pays its own start (measured on
 * the bench's 1M log: about 0.3 CPU s for the thread and its modules, 0.2 s for the lines
 * before its part and the parser, and its JIT and caches warming up), which a smaller log does
 * not win back. Workers get the catalogue's facts as data (audit-knowledge.ts), not its modules.
 */
import { existsSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PooltestError, type PooltestErrorCode } from '../engine/record/errors.js';
import type { AuditCollector, CollectorState } from './audit-collector.js';
import { KNOWLEDGE_KEY, knowledgeForWorkers, type AuditKnowledge } from './audit-knowledge.js';
import type { InputSummary } from './audit-types.js';
import { fileChunks } from './file-chunks.js';
import { fileError } from './input-checks.js';
import { binaryLog, CHUNK_BYTES, readLogStream, type LogInputOptions } from './log-input.js';
import { detectLogFormat, type LogFormat } from './log-format.js';
import { addLogCounts, LogState, logResult, type LogCounts } from './log-state.js';

/** More workers than this wait on one disk and one merge rather than help. */
const MAX_WORKERS = 8;
/** Logs from this size on are read by one thread per core unless `--jobs` says otherwise. */
export const PARALLEL_MIN_BYTES = 64 * 1024 * 1024;
const SNIFF_BYTES = 64 * 1024;
const SCAN_BYTES = 1024 * 1024;
/**
 * What the main thread reads while a worker starts (its thread, modules and parser). Measured
 * on the bench's 1M log (153 MB, two threads, load average 15 to 20, three runs each): with
 * 8 MB more for the main thread the worker finished 0.3 to 1.6 s after it, with 24 MB 0.6 to
 * 1.0 s before it, with 16 MB within 0.7 s either way. (Before workers got the catalogue as data,
 * an equal split left the main thread waiting 1.5 to 2.7 s.)
 */
const HEAD_START_BYTES = 16 * 1024 * 1024;

/** What the main thread tells a worker (audit/log-worker.ts). */
export interface WorkerTask {
  path: string;
  name: string;
  start: number;
  end: number;
  format: LogFormat;
  maxStatementBytes: number;
  /** Bytes per read (tests make it small so statements cross reads). */
  chunkBytes: number;
  /** The catalogue's facts the classifier needs, so the worker need not import it (audit-knowledge.ts). */
  [KNOWLEDGE_KEY]: AuditKnowledge;
}

/** What a worker sends back. */
export type WorkerMessage =
  | { kind: 'progress'; bytes: number; lines: number }
  | { kind: 'done'; counts: LogCounts; collector: CollectorState }
  | { kind: 'error'; code: PooltestErrorCode | null; message: string; detail: PooltestError['detail'] };

/** How many threads read a log file of `size` bytes (see above). */
export function workersFor(jobs: number | undefined, size: number): number {
  return Math.min(jobs ?? (size >= PARALLEL_MIN_BYTES ? availableParallelism() : 1), MAX_WORKERS);
}

/**
 * Reads `path` with `jobs` workers into `collector`. Null when it cannot be read in parts (its
 * format, no worker script beside this module when run from sources), so the caller reads it
 * alone.
 */
export async function auditLogParallel(
  path: string,
  collector: AuditCollector,
  opts: LogInputOptions,
  jobs: number,
  size: number,
): Promise<{ summary: InputSummary; warnings: string[] } | null> {
  const script = new URL('./log-worker.js', import.meta.url);
  if (!existsSync(fileURLToPath(script))) return null;
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (error) {
    throw fileError(path, error, '--log');
  }
  const workers: Worker[] = [];
  try {
    const head = await readAt(file, 0, SNIFF_BYTES);
    const nul = head.indexOf(0);
    // The same refusal as the reader on one thread gives, by the same first bytes.
    if (nul !== -1) throw binaryLog(path, nul);
    const format = opts.format === 'auto' ? formatOf(head) : opts.format;
    if (format === null || format === 'csvlog') return null;
    const starts = [0];
    for (let k = 1; k < jobs; k++) {
      const cut = await entryStart(file, cutNear(size, jobs, k), size, format);
      if (cut > starts[starts.length - 1]! && cut < size) starts.push(cut);
    }
    const parts = starts.map((start, k) => ({ start, end: starts[k + 1] ?? size }));
    if (parts.length === 1) return null;
    const progress = parts.map(() => ({ bytes: 0, lines: 0 }));
    const report = (k: number, bytes: number, lines: number): void => {
      progress[k] = { bytes, lines };
      const sum = progress.reduce((a, p) => ({ bytes: a.bytes + p.bytes, lines: a.lines + p.lines }), {
        bytes: 0,
        lines: 0,
      });
      opts.progress?.update(sum.bytes, sum.lines);
    };
    opts.progress?.start(path, size);
    const chunkBytes = opts.chunkBytes ?? CHUNK_BYTES;
    const knowledge = await knowledgeForWorkers();
    const results: Promise<{ counts: LogCounts; collector: CollectorState }>[] = [];
    for (const [k, part] of parts.entries()) {
      if (k === 0) continue;
      const task: WorkerTask = {
        path,
        name: path,
        ...part,
        format,
        maxStatementBytes: opts.maxStatementBytes,
        chunkBytes,
        [KNOWLEDGE_KEY]: knowledge,
      };
      const worker = new Worker(script, { workerData: task });
      workers.push(worker);
      results.push(runWorker(worker, (bytes, lines) => report(k, bytes, lines)));
    }
    // A failed worker must not leave the others' promises unobserved while the first part is read.
    const all = Promise.all(results);
    all.catch(() => {});
    const state = new LogState(path, collector, { format, maxStatementBytes: opts.maxStatementBytes });
    const first = fileChunks(path, 0, parts[0]!.end, chunkBytes);
    await readLogStream(first, state, path, opts.maxStatementBytes, { sniff: false, linesBefore: 0 }, (bytes, lines) =>
      report(0, bytes, lines),
    );
    const done = await all;
    for (const part of done) collector.absorb(part.collector);
    return logResult(path, addLogCounts([state.counts, ...done.map((d) => d.counts)]), opts.format);
  } finally {
    opts.progress?.done();
    await Promise.all(workers.map((w) => w.terminate()));
    await file.close();
  }
}

function runWorker(
  worker: Worker,
  onProgress: (bytes: number, lines: number) => void,
): Promise<{ counts: LogCounts; collector: CollectorState }> {
  return new Promise((resolve, reject) => {
    worker.on('message', (m: WorkerMessage) => {
      if (m.kind === 'progress') onProgress(m.bytes, m.lines);
      else if (m.kind === 'done') resolve({ counts: m.counts, collector: m.collector });
      else reject(m.code !== null ? new PooltestError(m.code, m.message, m.detail) : new Error(m.message));
    });
    worker.on('error', reject);
    worker.on('exit', (code) => {
      if (code !== 0) reject(new Error(`a log worker stopped with exit code ${code}`));
    });
  });
}

/**
 * Where part `k` of `jobs` should start. The main thread reads from the moment the parts are
 * known, while each worker first starts a thread, loads its modules and the parser; so the
 * first part is longer by what the main thread reads meanwhile, and the workers share the rest
 * equally, so that all threads finish together rather than the main thread waiting on them.
 */
export function cutNear(size: number, jobs: number, k: number): number {
  // At most half as much again as an equal share, so that a small log still gives every
  // thread a part (the tests read a few kilobytes with three threads).
  const share = size / jobs;
  const first = Math.floor(share + Math.min(HEAD_START_BYTES, share / 2));
  return first + Math.floor(((size - first) * (k - 1)) / (jobs - 1));
}

/** The format the first non-empty line says, or null when the head holds no complete one. */
function formatOf(head: Buffer): LogFormat | null {
  let pos = 0;
  for (;;) {
    const nl = head.indexOf(0x0a, pos);
    if (nl === -1) return null;
    const line = head.toString('utf8', pos, nl);
    if (line.trim() !== '') return detectLogFormat(line.replace(/\r$/, ''));
    pos = nl + 1;
  }
}

/** The first entry start at or after `from` (`size` when there is none). */
async function entryStart(file: FileHandle, from: number, size: number, format: LogFormat): Promise<number> {
  let pos = from;
  while (pos < size) {
    const buf = await readAt(file, pos, SCAN_BYTES);
    if (buf.length === 0) return size;
    for (let nl = buf.indexOf(0x0a); nl !== -1; nl = buf.indexOf(0x0a, nl + 1)) {
      const next = pos + nl + 1;
      if (next >= size) return size;
      // The byte after the newline may lie past this buffer: read it.
      const after = nl + 1 < buf.length ? buf[nl + 1]! : (await readAt(file, next, 1))[0]!;
      if (format === 'jsonlog' || after !== 0x09) return next;
    }
    pos += buf.length;
  }
  return size;
}

/**
 * Newlines in `[start, end)` of the open file. One buffer serves every read: a fresh (zeroed)
 * one per read made a worker touch as much new memory as the part before its own, which cost
 * more CPU than the counting (measured: about 0.5 CPU s for the first half of the bench's 1M log).
 */
export async function countNewlines(file: FileHandle, start: number, end: number): Promise<number> {
  let n = 0;
  const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(SCAN_BYTES * 8, end - start)));
  for (let pos = start; pos < end;) {
    const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, end - pos), pos);
    if (bytesRead === 0) break;
    const buf = buffer.subarray(0, bytesRead);
    for (let i = buf.indexOf(0x0a); i !== -1; i = buf.indexOf(0x0a, i + 1)) n++;
    pos += bytesRead;
  }
  return n;
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await file.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}
