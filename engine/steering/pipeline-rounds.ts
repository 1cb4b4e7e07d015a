/**
 * The rounds the `pipeline/*` checks drive: a wire-level client A sends its pipeline while
 * other clients compete for the pool. C, a holder, is placed on the backend A's last pipeline
 * used, inside a transaction (landOn), so A's pipeline must go to another backend, and after it
 * looks for A's state from inside its transaction. D sends one short transaction at the same
 * moment as the pipeline, so the pooler has a client to hand a backend to between A's Syncs.
 *
 * Over the rounds A's transactions and the other clients' land on the same backends, which the
 * judges prove from the pids: the pooler had every chance to split a transaction or mix answers.
 * Repeated so that a defect showing one time in three is caught (ROUNDS: (2/3)^6 < 9% missed),
 * and stopped early once a round broke (the caller says so).
 */
import { PIPELINE_TAGS } from '../record/tags.js';
import type { WireSession } from '../session/wire-session.js';
import * as fe from '../wire/frontend.js';
import { dismiss } from './holders.js';
import { landOn } from './land-on.js';
import type { Scenario } from './scenario.js';

/** Rounds per check: enough to catch, in most runs, a defect that shows one time in three. */
export const PIPELINE_ROUNDS = 6;

export interface PipelineRoundsOptions {
  /** Rounds to drive; default {@link PIPELINE_ROUNDS}. */
  rounds?: number;
  /** What C (inside its transaction, after A's pipeline) and D (during it) read; each must return `pid`. */
  look: string;
  /** Sends round `round`'s pipeline (1-based); returns false to stop (the round broke). */
  pipeline(a: WireSession, round: number): Promise<boolean>;
}

/**
 * Opens A (wire) and D, and drives the rounds. From the second round on, C's candidates land on
 * the backend A's last pipeline used (landOn), and those that landed elsewhere let go before
 * the pipeline, so that A's next pipeline must run on another backend with one free; C looks
 * from inside its transaction where it holds one. Returns A for what the check does after.
 */
export async function pipelineRounds(scn: Scenario, opts: PipelineRoundsOptions): Promise<WireSession> {
  const a = await scn.openWire('A');
  const d = await scn.open('D');
  const rounds = opts.rounds ?? PIPELINE_ROUNDS;
  for (let round = 1; round <= rounds && a.alive && !scn.interrupted; round++) {
    const last = scn.steps.filter((s) => s.session === 'A' && s.tag.startsWith(`${PIPELINE_TAGS.pipe}.`)).at(-1)?.pid;
    const landing =
      last != null ? await landOn(scn, last, { prefix: `C${round}.`, tag: PIPELINE_TAGS.hold, probe: false }) : null;
    // Only A's last backend stays held: the candidates that landed elsewhere let theirs go.
    await dismiss(landing?.others ?? []);
    const [goOn] = await Promise.all([opts.pipeline(a, round), d.run(PIPELINE_TAGS.compete, opts.look)]);
    const c = landing?.observer;
    if (c?.step?.txStatus === 'T') await c.session.run(PIPELINE_TAGS.look, opts.look);
    await dismiss([c]);
    if (!goOn) break;
  }
  return a;
}

/** The transaction-local setting a marked transaction sets and reads back. */
export const PIPE_SETTING = 'pooltest.pipe';

/** What C and D read: their backend, and any value of A's transaction they can see. */
export const PIPE_LOOK = `SELECT pg_backend_pid() AS pid, coalesce(current_setting('${PIPE_SETTING}', true), '') AS seen`;

/**
 * One implicit transaction of a pipeline, as a driver sends it: a statement that sets `value`
 * transaction-locally, and one that reads it back, each Parse/Bind/Describe/Execute, then Sync.
 * Both return `pid`: the transaction ran wholly on one backend when the two agree, and the
 * read-back proves the second ran inside the first's transaction.
 */
export function markedTransaction(value: string): fe.FrontendMessage[] {
  return [
    ...unnamed(`SELECT pg_backend_pid() AS pid, set_config('${PIPE_SETTING}', $1, true) AS mark`, [value]),
    ...unnamed(`SELECT pg_backend_pid() AS pid, current_setting('${PIPE_SETTING}', true) AS seen`),
    fe.sync(),
  ];
}

/** An unnamed statement: Parse, Bind, Describe (for the column names), Execute. */
export function unnamed(text: string, params: string[] = []): fe.FrontendMessage[] {
  return [fe.parse('', text), fe.bind('', '', params), fe.describe('P', ''), fe.execute()];
}

/** A use of a named statement already parsed: Bind, Describe, Execute (no Parse, as a driver's cache does). */
export function useNamed(name: string, params: string[] = []): fe.FrontendMessage[] {
  return [fe.bind('', name, params), fe.describe('P', ''), fe.execute()];
}
