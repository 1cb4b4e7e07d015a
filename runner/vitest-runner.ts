/**
 * Running the check suites through Vitest's Node API, from inside the CLI or the library.
 * Vitest is configured inline (never from the user's folder), writes its cache to the temp
 * folder (the package may be installed read-only), runs one file at a time (checks steer a
 * small shared pool and must not disturb each other), and reports only to our collector.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PooltestProvided } from './vitest-check.js';
import { WAIT_ANNOTATION } from '../engine/execute/execute.js';
import { sequencerFor } from './check-order.js';
import { offerContext } from './context-channel.js';
import { runData } from '../engine/context/run-state.js';
import type { CheckResult } from '../engine/types.js';

export interface SuiteRunEvents {
  onCheckStart?(file: string): void;
  onCheckResult?(result: CheckResult): void;
  /** A running check waits for `what`, for up to `boundMs` (e.g. for the target to come back). */
  onWait?(what: string, boundMs: number): void;
  /**
   * Cancels the run when aborted: Vitest skips the files not started yet and aborts the
   * running test's signal, which stops that check's scenario (see vitest-check.ts).
   */
  signal?: AbortSignal;
}

interface TestCaseLike {
  name: string;
  meta(): { pooltest?: CheckResult; pooltestBegan?: boolean };
  result(): { state: string; errors?: ReadonlyArray<{ message?: string }> };
  module: { moduleId: string };
}

/**
 * Where the suites live: `dist/suites` beside the compiled engine, or `suites` in a source
 * checkout; and the workers' setup file beside this one (vitest-worker-setup.ts).
 */
export function suitesLocation(): {
  root: string;
  pattern: string;
  workerSetup: string;
  /** The thread Vitest runs on in a compiled run (vitest-host.ts); null from source (TypeScript). */
  host: string | null;
} {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = path.resolve(here, '..');
  const compiled = here.split(path.sep).includes('dist');
  const pattern = compiled ? 'suites/**/*.test.js' : 'suites/**/*.test.ts';
  if (!existsSync(path.join(root, 'suites'))) throw new Error(`pooltest suites not found under ${root}`);
  return {
    root,
    pattern,
    workerSetup: path.join(here, compiled ? 'vitest-worker-setup.js' : 'vitest-worker-setup.ts'),
    host: compiled ? path.join(here, 'vitest-host.js') : null,
  };
}

/**
 * Whether Vitest runs on a thread of its own (vitest-host.ts): in a compiled run, unless
 * POOLTEST_VITEST_THREAD=0 keeps it on the runner's thread (for a profiler that follows one
 * thread). From source there is no compiled host to start: it runs here.
 */
export function hostsVitest(): boolean {
  return hostFile() !== null;
}

/** The host's file when Vitest runs on a thread of its own (see {@link hostsVitest}), else null. */
function hostFile(): string | null {
  if (process.env.POOLTEST_VITEST_THREAD === '0') return null;
  const { host } = suitesLocation();
  return host && existsSync(host) ? host : null;
}

let vitestModule: Promise<typeof import('vitest/node')> | null = null;

/**
 * Starts loading Vitest (about 0.2 s of CPU) without waiting for it: `run()` calls this once the
 * target accepted a TCP connection (early-checks.ts), and discovery's first login, mostly
 * waiting on the network, goes alongside.
 */
export function preloadVitest(): void {
  // Hosted, Vitest loads on its own thread when the run starts (startSuites).
  if (!hostFile()) void loadVitest();
}

/** Vitest's Node API, loaded once per thread. */
function loadVitest(): Promise<typeof import('vitest/node')> {
  vitestModule ??= import('vitest/node');
  // A failed load is reported by runVitest, which awaits the same promise.
  vitestModule.catch(() => undefined);
  return vitestModule;
}

/** Runs the selected check files, in the order of `fileFilters`, and returns one result per test, in completion order. */
export async function runSuites(
  provided: PooltestProvided,
  fileFilters: string[],
  events: SuiteRunEvents = {},
): Promise<CheckResult[]> {
  // Only the data crosses to the workers (engine/context/run-state.ts).
  return runVitest({ pooltest: { ...provided, ctx: runData(provided.ctx) } }, fileFilters, events, () => undefined);
}

/** A run of the check files started before its context exists (see {@link startSuites}). */
export interface StartedSuites {
  /**
   * Resolves once Vitest's start-up on this thread is done (what is left runs on its worker's
   * thread): the caller's timed steps wait for it, so that no measurement includes it. Hosted
   * on a thread of its own (vitest-host.ts), nothing of it runs here: resolved at once.
   */
  created: Promise<void>;
  /** Vitest runs on a thread of its own (vitest-host.ts), not on the caller's. */
  hosted: boolean;
  /** Hands the run context to the checks, which wait for it; they start now. */
  provide(provided: PooltestProvided): void;
  /**
   * No context will come (discovery failed, the run was interrupted): every check ends at once,
   * touching nothing, and Vitest closes. The caller reports its own error, not these results.
   */
  abandon(reason: string): void;
  /** One result per test, in completion order, once Vitest has closed. */
  results: Promise<CheckResult[]>;
}

/**
 * Starts the check files before their run context exists: Vitest starts its worker and loads
 * the first file while discovery runs (on loopback about half a second of CPU, on another
 * thread), and each check waits for the context on a channel (runner/context-channel.ts).
 */
export function startSuites(runId: string, fileFilters: string[], events: SuiteRunEvents = {}): StartedSuites {
  const offer = offerContext(runId);
  // Vitest can lose a cancel that lands while its run is still starting (a fresh-eyes trial
  // under load: the cancel reached its listeners, yet every check of the run ran after a
  // Ctrl-C that came just after discovery, 3 times in 20). From the interrupt on, a check
  // asking for its context is refused, and reported as never started: at most the check that
  // already had it runs on, bounded by its steps.
  const withdraw = (): void => offer.withdraw(INTERRUPTED_NOT_RUN);
  if (events.signal?.aborted) withdraw();
  else events.signal?.addEventListener('abort', withdraw, { once: true });
  let created!: () => void;
  const createdP = new Promise<void>((r) => (created = r));
  // Abandoned, the run is cancelled as an interrupted one is: the files not started are skipped.
  const abandoned = new AbortController();
  const signal = events.signal ? AbortSignal.any([events.signal, abandoned.signal]) : abandoned.signal;
  const host = hostFile();
  let given = false;
  const hosted = host
    ? hostedVitest(host, offer.name, fileFilters, { ...events, cancelSignal: signal }, () => given)
    : null;
  if (hosted) created();
  const run =
    hosted?.results ??
    runVitest({ pooltestChannel: offer.name }, fileFilters, { ...events, cancelSignal: signal }, () => created());
  const results = run.finally(() => {
    events.signal?.removeEventListener('abort', withdraw);
    // A run that ended before it was given anything (Vitest failed to start): nobody waits now.
    offer.refuse('the check run ended before discovery finished');
    offer.close();
    created();
  });
  return {
    created: createdP,
    hosted: hosted !== null,
    provide: (p) => {
      given = true;
      offer.give(p);
    },
    abandon: (reason) => {
      offer.refuse(reason);
      abandoned.abort();
    },
    results,
  };
}

/** What the runner hands Vitest's own thread (vitest-host.ts). */
export interface HostData {
  channel: string;
  fileFilters: string[];
  /** The caller passed a signal: Vitest's own SIGINT handling stays off, as in process. */
  interruptible: boolean;
}

/** From the runner to Vitest's thread. */
export type RunnerMessage = { type: 'interrupt' } | { type: 'cancel' };

/** From Vitest's thread to the runner. */
export type HostMessage =
  | { type: 'created' }
  | { type: 'start'; file: string }
  | { type: 'wait'; what: string; boundMs: number }
  | { type: 'result'; result: CheckResult }
  | { type: 'done'; results: CheckResult[] }
  | { type: 'failed'; message: string; stack: string | null };

/**
 * Vitest on a thread of its own (vitest-host.ts), its events passed on to `events` here. The
 * checks ask for their context on `channel`, which this thread keeps. Cancelled before any
 * context was given (`given`), nothing of the run can have touched the target (every check
 * waits for its context first): the thread is ended at once rather than waited for, so that a
 * run that fails in discovery says so without waiting for Vitest to start and close.
 */
function hostedVitest(
  host: string,
  channel: string,
  fileFilters: string[],
  events: SuiteRunEvents & { cancelSignal: AbortSignal },
  given: () => boolean,
): { results: Promise<CheckResult[]> } {
  const data: HostData = { channel, fileFilters, interruptible: events.signal !== undefined };
  const worker = new Worker(host, { workerData: data, execArgv: workerExecArgv(process.execArgv) });
  const results = new Promise<CheckResult[]>((resolve, reject) => {
    let settled = false;
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      events.signal?.removeEventListener('abort', interrupt);
      events.cancelSignal.removeEventListener('abort', cancel);
      f();
      // Vitest has closed (or never will): whatever the thread still holds goes with it.
      void worker.terminate();
    };
    const interrupt = (): void => worker.postMessage({ type: 'interrupt' } satisfies RunnerMessage);
    const cancel = (): void => {
      if (!given()) settle(() => resolve([]));
      else worker.postMessage({ type: 'cancel' } satisfies RunnerMessage);
    };
    worker.on('message', (m: HostMessage) => {
      if (m.type === 'start') events.onCheckStart?.(m.file);
      else if (m.type === 'wait') events.onWait?.(m.what, m.boundMs);
      else if (m.type === 'result') events.onCheckResult?.(m.result);
      else if (m.type === 'done') settle(() => resolve(m.results));
      else if (m.type === 'failed')
        settle(() => reject(Object.assign(new Error(m.message), m.stack ? { stack: m.stack } : {})));
    });
    worker.on('error', (err) => settle(() => reject(err)));
    worker.on('exit', (code) =>
      settle(() => reject(new Error(`the check runner's thread ended without results (exit code ${code})`))),
    );
    // The interruption first: a run both interrupted and cancelled reads as interrupted there.
    if (events.signal?.aborted) interrupt();
    else events.signal?.addEventListener('abort', interrupt, { once: true });
    if (events.cancelSignal.aborted) cancel();
    else events.cancelSignal.addEventListener('abort', cancel, { once: true });
  });
  return { results };
}

/**
 * The caller's Node options for Vitest's thread, less those that only name the caller's own
 * code (`-e`/`--eval`, `-p`/`--print` and their script, `--input-type`): a worker refuses them
 * (ERR_WORKER_INVALID_EXEC_ARGV), as in a library run from `node --input-type=module -e ...`.
 */
export function workerExecArgv(argv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-e' || a === '--eval' || a === '-p' || a === '--print') i++;
    else if (/^--(eval|print|input-type)(=|$)/.test(a)) continue;
    else if (a === '-pe' || a === '-ep') i++;
    else kept.push(a);
  }
  return kept;
}

/** The run of `fileFilters` whose checks ask for their context on `channel` (vitest-host.ts runs it). */
export function runVitestOn(
  channel: string,
  fileFilters: string[],
  events: SuiteRunEvents & { cancelSignal?: AbortSignal },
  onCreated: () => void,
): Promise<CheckResult[]> {
  return runVitest({ pooltestChannel: channel }, fileFilters, events, onCreated);
}

async function runVitest(
  provide: { pooltest: PooltestProvided } | { pooltestChannel: string },
  fileFilters: string[],
  events: SuiteRunEvents & { cancelSignal?: AbortSignal },
  onCreated: () => void,
): Promise<CheckResult[]> {
  const cancelSignal = events.cancelSignal ?? events.signal;
  const { startVitest } = await loadVitest();
  const { root, pattern, workerSetup } = suitesLocation();
  const results: CheckResult[] = [];
  let cancel: (() => void) | null = null;
  // Whether Vitest is cancelling now: a cancel made before the run began was forgotten (cleared).
  let cancelling = (): boolean => false;
  const collector = {
    onInit(vitest: { cancelCurrentRun(reason: string): Promise<void> }) {
      onCreated();
      const signal = cancelSignal;
      if (!signal) return;
      // Public on Vitest's object, though not in its types.
      cancelling = () => (vitest as { isCancelling?: boolean }).isCancelling === true;
      cancel = () => void vitest.cancelCurrentRun('pooltest-interrupted');
      if (signal.aborted) cancel();
      else signal.addEventListener('abort', cancel, { once: true });
    },
    onTestModuleStart(mod: { moduleId: string }) {
      // A cancel that came before the run began is forgotten: Vitest clears its cancelling
      // flag when the run starts (runFiles). Say it again once a file is under way. Only then:
      // a second cancel while the first is still going is Vitest's "Ctrl-C twice", which stops
      // the test worker at once, and the check in flight (this event arrives late, batched)
      // died before its tidy-up and its result (reported as never started).
      if (cancelSignal?.aborted && !cancelling()) cancel?.();
      events.onCheckStart?.(mod.moduleId);
    },
    onTestCaseAnnotate(_testCase: unknown, annotation: { type: string; message: string }) {
      if (annotation.type !== WAIT_ANNOTATION) return;
      const wait = JSON.parse(annotation.message) as { what: string; boundMs: number };
      events.onWait?.(wait.what, wait.boundMs);
    },
    onTestCaseResult(testCase: TestCaseLike) {
      const meta = testCase.meta().pooltest;
      // Without a result after a cancel: a check that never began (Vitest skipped its file, or
      // it was still waiting for the run's context) touched nothing: say so, not "crashed". One
      // that had begun its scenario was interrupted, and what it left is not known here.
      const began = testCase.meta().pooltestBegan === true;
      const cut = events.signal?.aborted ? (began ? 'started' : 'not-started') : null;
      const result = meta ?? crashed(testCase, cut);
      results.push(result);
      events.onCheckResult?.(result);
    },
  };
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const previousExitCode = process.exitCode;
  // Vitest's logger exits the process on SIGINT/SIGTERM (its CLI's behaviour), from the moment
  // it is constructed, well before any reporter hears of it. Here the caller owns those
  // signals and must get to sweep and clean up first: Vitest's handlers are never installed.
  const restoreSignals = events.signal ? keepSignalsToCaller() : () => undefined;
  try {
    const vitest = await startVitest(
      'test',
      fileFilters,
      {
        root,
        config: false,
        watch: false,
        include: [pattern],
        // One live state per run for all check files in the worker (worker-run-states.ts).
        setupFiles: [workerSetup],
        reporters: [collector],
        provide,
        fileParallelism: false,
        // Files run in the order of fileFilters, the same every run (see check-order.ts).
        sequence: { sequencer: sequencerFor(fileFilters) },
        maxWorkers: 1,
        pool: 'threads',
        isolate: false,
        testTimeout: 120_000,
        hookTimeout: 30_000,
        passWithNoTests: true,
        silent: true,
        server: { deps: { external: nativeModules(pattern) } },
      },
      { cacheDir: path.join(os.tmpdir(), 'pooltest-vite-cache') },
      { stdout: sink, stderr: sink },
    );
    if (cancel) cancelSignal?.removeEventListener('abort', cancel);
    await vitest?.close();
    // startVitest sets a failing exit code when a check fails its expectation; the CLI decides.
    process.exitCode = previousExitCode;
  } finally {
    restoreSignals();
  }
  return results;
}

/**
 * Compiled, the engine and the check definitions are plain ES modules: the worker imports them
 * with Node's own loader instead of sending each one through Vite's transform first, which cost
 * a good part of a second before the first check. Only the test files themselves go through
 * Vitest, which has to collect their tests. From source (TypeScript) everything is transformed.
 */
function nativeModules(pattern: string): RegExp[] {
  return pattern.endsWith('.js') ? [/\/dist\/(?!.*\.test\.js$).*\.js$/] : [];
}

const SIGNALS = new Set<string | symbol>(['SIGINT', 'SIGTERM']);

/**
 * Until the returned function is called, SIGINT/SIGTERM listeners that others add to
 * `process` are not installed (Vitest's `process.once('SIGINT', exit)`; `once` goes through
 * `on`). Listeners added earlier, the caller's own, stay and keep working.
 */
function keepSignalsToCaller(): () => void {
  type Add = typeof process.on;
  const names = ['on', 'addListener', 'prependListener'] as const;
  const target = process as unknown as Record<(typeof names)[number], Add>;
  const saved = names.map((name) => ({
    name,
    add: target[name],
    own: Object.prototype.hasOwnProperty.call(process, name),
  }));
  for (const { name, add } of saved) {
    target[name] = function (this: NodeJS.Process, event: string | symbol, listener: (...args: unknown[]) => void) {
      return SIGNALS.has(event) ? this : add.call(this, event as 'SIGINT', listener);
    } as Add;
  }
  return () => {
    // Back to exactly what was there: EventEmitter's own methods, or whatever someone set.
    for (const { name, add, own } of saved) {
      if (own) target[name] = add;
      else delete (target as Partial<Record<string, Add>>)[name];
    }
  };
}

/** The reason of a check an interrupted run never started (runner/run.ts rebuilds such results). */
export const INTERRUPTED_NOT_RUN = 'not run: the run was interrupted before this check started';

/**
 * The reason of a check the interrupt stopped after it started but before it handed over its
 * result (it normally does: runner/vitest-check.ts). It starts as judge-record.ts's
 * interruptedJudgement does: the one label of an interrupted check.
 */
export const INTERRUPTED_UNREPORTED =
  'interrupted: the run was cancelled while this check ran, before it reported its steps; the sweep visits the backends the run touched';

/**
 * A test that ended without a result: it threw before judging (crashed), or the run was
 * cancelled before it started or while it ran (`cut`). Reported, never dropped.
 */
function crashed(testCase: TestCaseLike, cut: 'started' | 'not-started' | null): CheckResult {
  const errors = testCase.result().errors ?? [];
  const notRun = cut === 'not-started' ? INTERRUPTED_NOT_RUN : cut === 'started' ? INTERRUPTED_UNREPORTED : null;
  const message = notRun ?? (errors.map((e) => e.message ?? '').join('; ') || 'the check ended without a result');
  const id = testCase.name.split(':')[0] ?? testCase.name;
  return {
    id,
    title: testCase.name,
    severity: 'correctness',
    outcome: null,
    expected: null,
    expectedRef: null,
    verdict: 'inconclusive',
    reason: notRun ?? `pooltest error: ${message}`,
    facts: cut === 'started' ? { interrupted: true } : {},
    evidence: message,
    advice: null,
    steps: [],
    durationMs: 0,
    statements: 0,
    cleanup:
      cut === 'not-started'
        ? { ok: true, detail: 'nothing to clean' }
        : cut === 'started'
          ? { ok: false, detail: 'unknown: the check was stopped before it reported its cleanup; left to the sweep' }
          : { ok: false, detail: 'unknown: the check crashed' },
  };
}
