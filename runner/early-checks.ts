/**
 * The check run started during discovery. Vitest's start-up (its worker thread, the runtime,
 * the first suite file: about half a second of CPU on loopback) used to begin once discovery
 * had ended; it now begins as soon as discovery's first query was answered, and the checks
 * wait for the run context (runner/vitest-runner.ts, startSuites), so that start-up overlaps
 * discovery's waiting on the network. A target that cannot be reached or refuses the login is
 * said at once: no check run was started to be ended first.
 *
 * Until the context is given, nothing of the check run reaches the caller: a first file
 * loading during discovery is not a check starting, and the results of a run abandoned
 * (discovery failed, the run was interrupted) are not results.
 */
import { hostsVitest, preloadVitest, startSuites, type StartedSuites, type SuiteRunEvents } from './vitest-runner.js';
import type { PooltestProvided } from './vitest-check.js';
import type { CheckResult } from '../engine/types.js';

export class EarlyChecks {
  private suites: StartedSuites | null = null;
  private live = false;
  private startedEarly: string | null = null;
  /** What the check run tells, passed on to `caller` once the context was given. */
  readonly events: SuiteRunEvents;

  constructor(
    private readonly runId: string,
    private readonly fileFilters: string[],
    private readonly caller: SuiteRunEvents,
  ) {
    this.events = {
      ...caller,
      onCheckStart: (file) => {
        if (this.live) caller.onCheckStart?.(file);
        else this.startedEarly = file;
      },
      onCheckResult: (r) => {
        if (this.live) caller.onCheckResult?.(r);
      },
      onWait: (what, boundMs) => {
        if (this.live) caller.onWait?.(what, boundMs);
      },
    };
  }

  /**
   * Starts loading Vitest's module (CPU) without waiting for it, so that it goes alongside the
   * first login; called once the target is known to be reachable (discovery's onReachable).
   */
  preload(): void {
    if (this.fileFilters.length === 0 || this.events.signal?.aborted) return;
    preloadVitest();
    // Where Vitest runs on a thread of its own (runner/vitest-host.ts) it starts now: nothing
    // of it runs on this thread, so it goes alongside all of discovery.
    if (hostsVitest()) void this.start();
  }

  /** Starts the check run (once); resolves when Vitest's start-up on this thread is done. */
  start(): Promise<void> {
    if (this.fileFilters.length === 0 || this.events.signal?.aborted) return Promise.resolve();
    this.suites ??= startSuites(this.runId, this.fileFilters, this.events);
    return this.suites.created;
  }

  /** Gives the checks their context and returns their results (none when there is nothing to run). */
  async run(provided: PooltestProvided): Promise<CheckResult[]> {
    await this.start();
    const suites = this.suites;
    if (!suites) return [];
    this.live = true;
    if (this.startedEarly) this.caller.onCheckStart?.(this.startedEarly);
    suites.provide(provided);
    return suites.results;
  }

  /** No context will come: the waiting checks end at once, and Vitest has closed when this resolves. */
  async abandon(reason: string): Promise<void> {
    if (!this.suites || this.live) return;
    this.suites.abandon(reason);
    await this.suites.results.catch(() => undefined);
  }
}
