/**
 * A worker thread reading one part of a large log (see log-parallel.ts): the same line
 * splitter, log reader and classifier as the main thread, into a collector of its own whose
 * contents go back as plain data when the part is read.
 */
import { open } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { PooltestError } from '../engine/record/errors.js';
import { AuditCollector } from './audit-collector.js';
import { fileChunks } from './file-chunks.js';
import { CHUNK_BYTES, readLogStream } from './log-input.js';
import { countNewlines, type WorkerMessage, type WorkerTask } from './log-parallel.js';
import { LogState } from './log-state.js';
import { loadParser } from '../common/sql-parser.js';

/** Lines of the file before the part, so that sources carry the file's line numbers. */
async function linesBefore(task: WorkerTask): Promise<number> {
  const file = await open(task.path, 'r');
  try {
    return await countNewlines(file, 0, task.start);
  } finally {
    await file.close();
  }
}

async function run(task: WorkerTask): Promise<WorkerMessage> {
  // Counted while the parser loads: both wait on other threads (file reads, WASM compilation).
  const [lineOffset] = await Promise.all([linesBefore(task), loadParser()]);
  const collector = new AuditCollector(true);
  const state = new LogState(task.name, collector, { format: task.format, maxStatementBytes: task.maxStatementBytes });
  const stream = fileChunks(task.path, task.start, task.end, task.chunkBytes);
  let last = 0;
  await readLogStream(
    stream,
    state,
    task.name,
    task.maxStatementBytes,
    { sniff: false, linesBefore: lineOffset },
    (bytes, lines) => {
      // A few updates a second is all a progress line needs.
      if (bytes - last < 8 * CHUNK_BYTES) return;
      last = bytes;
      parentPort!.postMessage({ kind: 'progress', bytes, lines } satisfies WorkerMessage);
    },
  );
  return { kind: 'done', counts: state.counts, collector: collector.snapshot() };
}

run(workerData as WorkerTask).then(
  (message) => parentPort!.postMessage(message),
  (error: unknown) => {
    const message: WorkerMessage =
      error instanceof PooltestError
        ? { kind: 'error', code: error.code, message: error.message, detail: error.detail }
        : { kind: 'error', code: null, message: error instanceof Error ? error.message : String(error), detail: {} };
    parentPort!.postMessage(message);
  },
);
