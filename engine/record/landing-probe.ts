/**
 * What steering and judging both read the same way from a landing's record: whether the
 * target shares backends between clients, and what a look at A's old backend after a queue
 * found. Steering decides from them whether to try again (steering/land-on.ts); judging whether
 * a miss is proof (judging/landing.ts). One definition, below both.
 */
import type { Discovery } from './discovery-facts.js';
import type { StepRecord } from './step-record.js';
import { boolOf, numberOf, valueOf } from './step-reading.js';

/** Discovery saw a backend serve another client, or a connected client change backends. */
export function sharesBackends(d: Discovery): boolean {
  return d.sharedAcrossClients || !d.clientKeepsBackend;
}

/**
 * What a look at b1 after a queue (`observe.probe`, steering/land-on.ts) found, the one
 * definition the landing (to retry or not) and the judgement use: `quiet` when b1 was present,
 * idle, and had not changed state since before the queued candidate began; `busy` when another
 * client used it; `unknown` when the look failed or b1 is gone.
 */
export function probeReading(p: StepRecord): 'quiet' | 'busy' | 'unknown' {
  if (p.error || numberOf(p, 'present') !== 1 || typeof valueOf(p, 'state') !== 'string') return 'unknown';
  return valueOf(p, 'state') === 'idle' && boolOf(p, 'quiet') === true ? 'quiet' : 'busy';
}
