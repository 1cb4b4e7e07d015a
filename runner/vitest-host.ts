/**
 * The thread Vitest runs on in a compiled run (runner/vitest-runner.ts, hostedVitest). Loading
 * Vitest's Node API (Vite, rolldown: about 0.3 s of CPU) and starting it used to run on the
 * runner's own thread, during discovery: discovery's first logins and steps waited for it, a
 * good part of a second at a distance. Here it runs beside discovery on a thread of its own.
 *
 * The runner's side keeps the run context's channel (runner/context-channel.ts): the checks ask
 * on it from Vitest's worker, a thread of this process like any other. Messages from the
 * runner: `interrupt` (the caller's signal: the run was interrupted) and `cancel` (the run was
 * abandoned). To the runner: `created`, `start`, `wait`, `result`, then `done` or `failed`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runVitestOn, type HostData, type HostMessage, type RunnerMessage } from './vitest-runner.js';

const port = parentPort;
if (!port) throw new Error('runner/vitest-host.js runs as a worker thread of the pooltest runner');
const data = workerData as HostData;
const interrupted = new AbortController();
const cancelled = new AbortController();
const post = (m: HostMessage): void => port.postMessage(m);
port.on('message', (m: RunnerMessage) => {
  if (m.type === 'interrupt') interrupted.abort();
  else if (m.type === 'cancel') cancelled.abort();
});

runVitestOn(
  data.channel,
  data.fileFilters,
  {
    // Only when the runner's caller can interrupt: it decides, as in process, what Vitest may do.
    ...(data.interruptible ? { signal: interrupted.signal } : {}),
    cancelSignal: AbortSignal.any([interrupted.signal, cancelled.signal]),
    onCheckStart: (file) => post({ type: 'start', file }),
    onWait: (what, boundMs) => post({ type: 'wait', what, boundMs }),
    onCheckResult: (result) => post({ type: 'result', result }),
  },
  () => post({ type: 'created' }),
).then(
  (results) => post({ type: 'done', results }),
  (err: unknown) =>
    post({
      type: 'failed',
      message: err instanceof Error ? err.message : String(err),
      stack: err instanceof Error ? (err.stack ?? null) : null,
    }),
);
