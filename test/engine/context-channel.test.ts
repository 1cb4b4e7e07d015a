/**
 * The run context handed to checks that started before discovery finished
 * (runner/context-channel.ts): the runner starts Vitest early, and each check asks for the
 * context on a channel. A BroadcastChannel keeps nothing for late listeners, so a check that
 * asks after the runner posted must still get it: the control shows a plain late listener
 * getting nothing, which is why the check asks.
 */
import { BroadcastChannel } from 'node:worker_threads';
import { expect, test } from 'vitest';
import { awaitContext, offerContext } from '../../runner/context-channel.js';
import type { PooltestProvided } from '../../runner/vitest-check.js';

const provided = (runId: string): PooltestProvided =>
  ({ ctx: { runId }, profile: null, strict: false }) as unknown as PooltestProvided;

/** Whether `p` settles within `ms`. */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((r) => setTimeout(() => r(false), ms)),
  ]);
}

test('a check that asks before discovery ends gets the context once the runner gives it', async () => {
  const offer = offerContext('ctx-early');
  try {
    const wait = awaitContext(offer.name);
    expect(await settlesWithin(wait, 50)).toBe(false);
    offer.give(provided('ctx-early'));
    expect((await wait).ctx.runId).toBe('ctx-early');
  } finally {
    offer.close();
  }
});

test('a check that asks after the runner gave the context still gets it', async () => {
  const offer = offerContext('ctx-late');
  try {
    offer.give(provided('ctx-late'));
    // Control: a listener that only subscribes now hears nothing of what was posted before.
    const late = new BroadcastChannel(offer.name);
    const heard = new Promise((r) => (late.onmessage = r));
    expect(await settlesWithin(heard, 100)).toBe(false);
    late.close();
    expect((await awaitContext(offer.name)).ctx.runId).toBe('ctx-late');
  } finally {
    offer.close();
  }
});

test('a refused context ends the waiting check with the runner reason, and a later give changes nothing', async () => {
  const offer = offerContext('ctx-refused');
  try {
    const wait = awaitContext(offer.name);
    offer.refuse('discovery did not finish');
    offer.give(provided('ctx-refused'));
    await expect(wait).rejects.toThrow('discovery did not finish');
  } finally {
    offer.close();
  }
});

test('a check that asks after the run was interrupted is refused, though the context was given (Vitest had lost the cancel: every check ran after a Ctrl-C)', async () => {
  const offer = offerContext('ctx-withdrawn');
  try {
    offer.give(provided('ctx-withdrawn'));
    // Control: before the interrupt a check asking now gets the context.
    expect((await awaitContext(offer.name)).ctx.runId).toBe('ctx-withdrawn');
    offer.withdraw('not run: the run was interrupted before this check started');
    await expect(awaitContext(offer.name)).rejects.toThrow(
      'not run: the run was interrupted before this check started',
    );
  } finally {
    offer.close();
  }
});

test('a check still waiting when the run is interrupted hears the refusal at once', async () => {
  const offer = offerContext('ctx-withdrawn-waiting');
  try {
    const wait = awaitContext(offer.name);
    offer.withdraw('interrupted');
    offer.give(provided('ctx-withdrawn-waiting'));
    await expect(wait).rejects.toThrow('interrupted');
  } finally {
    offer.close();
  }
});
