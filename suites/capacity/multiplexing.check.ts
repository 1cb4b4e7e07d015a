/**
 * capacity/multiplexing: do many connected clients share a few backends?
 *
 *   C1..C20 connect at once and stay connected; each runs three transactions in a row:
 *       SELECT pg_backend_pid() AS pid
 *   D (with --direct, while all twenty are still connected):
 *       SELECT count(*) FROM pg_stat_activity WHERE application_name = <this run's> AND <not D>
 *
 * A backend that answered two different connected clients is the proof of multiplexing. A
 * client that gets no backend within the bound (session pooling: every backend belongs to a
 * connected client; pgpool-II: no free child to accept the login) is left waiting, which is
 * itself the answer: one backend per client.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { failedStep, unseenReason } from '../../engine/judging/absence.js';
import { errorSummary, readCrowd } from '../../engine/judging/crowd-record.js';
import { numberOf, stepOf } from '../../engine/record/step-reading.js';
import { applicationNameFor } from '../../engine/session/session.js';
import { crowd } from '../../engine/steering/crowd.js';
import { candidateConnectMs } from '../../engine/steering/land-on.js';
import type { Discovery, Judgement, StepRecord } from '../../engine/types.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  connect: 'mux.connect',
  tx: 'mux.tx',
  server: 'mux.server',
} as const;

const CLIENTS = 20;
const TRANSACTIONS = 3;

/** The check's labels, declared before it so that its judge, written apart, returns only these. */
const OUTCOMES = {
  multiplexed: { means: 'some backend served two or more connected clients' },
  'one-per-client': {
    means: 'every backend served one client: costly, but statements keep their meaning',
    advice:
      'Every connected client holds a backend of its own here: connections, not transactions, use up the server, so keep client pools small or use transaction pooling (within its restrictions).',
  },
} satisfies Record<string, OutcomeInfo>;

/** What the judge may return: the labels above. */
type Label = keyof typeof OUTCOMES;

export const multiplexing = defineCheck({
  id: 'capacity/multiplexing',
  title: 'many connected clients share a few backends',
  severity: 'availability',
  leavesNoState: 'its clients only read the backend pid, and the direct look only reads pg_stat_activity',
  docs: [
    'https://www.pgbouncer.org/config.html#pool_mode (transaction: a server is assigned to a client only during a transaction)',
    'https://www.pgbouncer.org/features.html',
  ],
  summary: '20 concurrent clients: how many backends serve them',
  outcomes: OUTCOMES,
  async scenario(scn) {
    // Each transaction waits twice the wait bound, and never less than 2 s (within the step
    // bound): sixty transactions queue for two backends at once, and on a loaded machine the
    // first of them could miss a bound sized by discovery's quiet round trips, leaving every
    // client unserved and the check inconclusive (0 of 20 served: 2 of 3 fresh-clone runs
    // beside other work). Clients left waiting in session pooling wait the same bound.
    const boundMs = Math.min(scn.ctx.bounds.stepMs, Math.max(2 * scn.waitMs, 2_000));
    // D logs in while the crowd works: a direct login holds nothing of the pool, and at a
    // distance it would otherwise add its round trips after the crowd.
    const direct = scn.ctx.direct ? scn.open('D', { to: 'direct' }) : null;
    direct?.catch(() => undefined);
    await crowd(scn, {
      count: CLIENTS,
      prefix: 'C',
      connectTag: TAGS.connect,
      // A login the target holds is a waiting client; a slow one that comes is not (crowd.ts).
      connectMs: scn.ctx.bounds.connectMs,
      loginStallMs: candidateConnectMs(scn),
      stayConnected: true,
      work: async (s) => {
        for (let i = 0; i < TRANSACTIONS && s.alive; i++)
          await s.run(TAGS.tx, 'SELECT pg_backend_pid() AS pid', { boundMs });
      },
    });
    if (!direct) return;
    const d = await direct;
    await d.run(
      TAGS.server,
      `SELECT count(*)::int AS server_connections FROM pg_stat_activity WHERE application_name = '${applicationNameFor(scn.ctx.runId)}' AND datname = current_database() AND pid <> pg_backend_pid()`,
    );
  },
  judge: judgeMultiplexing,
});

/**
 * - Fewer than two clients served (every transaction answered with a pid): inconclusive.
 * - A backend answered two or more connected clients: `multiplexed`.
 * - Every backend answered one client only: `one-per-client` (clients left waiting or refused
 *   are counted in the facts), unless a client that had been served went unanswered later:
 *   inconclusive, since its missing transactions could have shown a shared backend.
 */
export function judgeMultiplexing(steps: readonly StepRecord[], discovery: Discovery): Judgement<Label> {
  const clients = readCrowd(steps, TAGS.connect, TAGS.tx);
  const served = clients.filter((c) => c.state === 'served' && c.pids.length > 0);
  const owners = new Map<number, Set<string>>();
  for (const c of served) for (const pid of c.pids) owners.set(pid, (owners.get(pid) ?? new Set()).add(c.label));
  const shared = [...owners.values()].filter((labels) => labels.size > 1).length;
  const facts = {
    clients: clients.length,
    served: served.length,
    waiting: clients.filter((c) => c.state === 'waited').length,
    refused: clients.filter((c) => c.state === 'refused').length,
    refusedWith: errorSummary(clients.filter((c) => c.state === 'refused')),
    backends: owners.size,
    sharedBackends: shared,
    poolSize: discovery.poolSize,
    withinPool: discovery.poolSize === null ? null : owners.size <= discovery.poolSize,
    serverConnections: numberOf(stepOf(steps, TAGS.server), 'server_connections'),
  };
  if (served.length < 2) {
    // Say what became of the others: on a busy machine many logins run out of their bound at
    // once, and that reads differently from a pooler that refuses them.
    const fates = clients.filter((c) => c.state !== 'served');
    const why = errorSummary(fates);
    return {
      outcome: null,
      facts,
      reason: `only ${served.length} of ${clients.length} clients were served${why ? `; the others: ${why}` : ''}`,
    };
  }
  if (shared > 0)
    return {
      outcome: 'multiplexed',
      facts,
      reason: `${served.length} connected clients ran on ${owners.size} backends`,
    };
  // Waiting for a first backend is this check's answer (every backend belongs to a client);
  // a client that had one and then went unanswered is not: a pooler that stalls mid-crowd
  // leaves its clients fewer transactions in which to show a shared backend.
  const cut = clients.find((c) => c.state !== 'served' && c.pids.length > 0);
  if (cut?.failure)
    return {
      outcome: null,
      facts,
      reason: unseenReason('one-per-client', `${failedStep(cut.failure)}, after it had been served`),
    };
  const left = facts.waiting > 0 ? `; ${facts.waiting} waited in vain for one` : '';
  return {
    outcome: 'one-per-client',
    facts,
    reason: `each of ${served.length} connected clients had a backend of its own${left}`,
  };
}
