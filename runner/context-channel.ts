/**
 * The run context, handed to check workers that started before it existed. pooltest's runner
 * starts Vitest while discovery is still running (its workers' start-up, about half a second
 * of CPU on another thread, then overlaps discovery's waiting on the network), so the checks
 * cannot get the context through Vitest's provide at start. They get the name of a channel
 * instead and ask on it; the runner answers once discovery is done, or says that no context
 * will come (discovery failed, the run was interrupted).
 *
 * A node:worker_threads BroadcastChannel reaches every thread of the process (Vitest's
 * `threads` pool, which the runner uses). Messages are not kept for late listeners, so the
 * worker asks (`want`) and the runner answers every ask, now or once it has the answer.
 */
import { BroadcastChannel } from 'node:worker_threads';
import { runData } from '../engine/context/run-state.js';
import type { PooltestProvided } from './vitest-check.js';

type Answer = { provided: PooltestProvided } | { failed: string };
type Message = { want: true } | Answer;

/** The runner's side: answers every ask with the context once {@link ContextOffer.give} has it. */
export interface ContextOffer {
  readonly name: string;
  give(provided: PooltestProvided): void;
  refuse(reason: string): void;
  /**
   * From now on every ask is refused with `reason`, even after the context was given: the run
   * was interrupted, and a check that starts now must not run (see startSuites).
   */
  withdraw(reason: string): void;
  close(): void;
}

export function offerContext(runId: string): ContextOffer {
  const name = `pooltest-context-${runId}`;
  const channel = new BroadcastChannel(name);
  let answer: Answer | null = null;
  channel.onmessage = (e: unknown) => {
    const m = (e as { data: Message }).data;
    if ('want' in m && answer) channel.postMessage(answer);
  };
  const settle = (a: Answer): void => {
    if (answer) return;
    answer = a;
    channel.postMessage(a);
  };
  return {
    name,
    // Only the data crosses: a live state (sessions, timers) cannot be cloned, nor be of use there.
    give: (provided) => settle({ provided: { ...provided, ctx: runData(provided.ctx) } }),
    refuse: (reason) => settle({ failed: reason }),
    withdraw: (reason) => {
      // Checks still waiting hear it at once; those that had the context keep it.
      if (!answer) return settle({ failed: reason });
      answer = { failed: reason };
    },
    close: () => channel.close(),
  };
}

/**
 * The worker's side: the context offered on `name`. Rejects with the runner's reason when none
 * will come. Bounded by the runner, which always answers: it gives or refuses before it closes.
 * Each check asks for itself (the runner answers every ask): nothing is kept between checks.
 */
export function awaitContext(name: string): Promise<PooltestProvided> {
  return new Promise<PooltestProvided>((resolve, reject) => {
    const channel = new BroadcastChannel(name);
    channel.onmessage = (e: unknown) => {
      const m = (e as { data: Message }).data;
      if ('provided' in m) resolve(m.provided);
      else if ('failed' in m) reject(new Error(m.failed));
      else return;
      channel.close();
    };
    channel.postMessage({ want: true } satisfies Message);
  });
}
