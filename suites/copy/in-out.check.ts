/**
 * copy/in-out: does COPY through the target behave as on PostgreSQL (rows in, rows out, a
 * CopyFail, a CopyDone that comes late), and is the backend free and clean for the next client
 * once the COPY is over?
 *
 *   A (pooltest's own wire client; <t> is a temp table named with the run's marker, ON COMMIT DROP):
 *   tx:    Query BEGIN; SELECT pg_backend_pid() AS pid; CREATE TEMP TABLE <t>_tx (n int) ON COMMIT DROP;
 *                COPY <t>_tx FROM STDIN                                -> CopyInResponse
 *          CopyData "1\n2\n3\n"; CopyDone                               -> COPY 3, ReadyForQuery T
 *          Query SAVEPOINT pooltest_copy; COPY <t>_tx FROM STDIN         -> CopyInResponse
 *          CopyData "4\n"; CopyFail                                     -> 57014, ReadyForQuery E
 *          Query ROLLBACK TO SAVEPOINT pooltest_copy; SELECT pg_backend_pid() AS pid, count(*) AS landed;
 *                COPY (SELECT n FROM <t>_tx ORDER BY n) TO STDOUT       -> landed 3, "1\n2\n3\n", T
 *          Query COMMIT; SELECT pg_backend_pid() AS pid                  -> I
 *   late:  Query SELECT pg_backend_pid() AS pid; CREATE TEMP TABLE <t>_late ...; COPY <t>_late FROM STDIN;
 *                SELECT count(*)::int AS landed FROM <t>_late          -- outside BEGIN: backend b
 *          CopyData "5\n6\n"; (a pause longer than a round trip, within the bound); CopyDone
 *                                                                       -> COPY 2, landed 2, I
 *   C1..:  during the pause, BEGIN; SELECT pg_backend_pid() AS pid     -- until one queues: none on b
 *   O:     BEGIN; SELECT pg_backend_pid() AS pid; SELECT txid_current_if_assigned() AS xid,
 *                to_regclass(<t>_late) AS leftover                     -- lands on b, finds it idle
 *   error: Query BEGIN; SELECT pg_backend_pid() AS pid; CREATE TEMP TABLE <t>_err ...; COPY <t>_err FROM STDIN
 *          CopyData "7\nnot a number\n"                                 -> 22P02, ReadyForQuery E
 *          CopyData "8\n"; CopyDone   (late: a client still streaming; PostgreSQL drops them)
 *          Query ROLLBACK; SELECT pg_backend_pid() AS pid                -> I
 *   O:     as after `late`, on the error's backend
 *
 * A pooler relays COPY's sub-protocol messages between a Query and its ReadyForQuery; it must
 * keep the server for the client until the COPY ends, and release it once it has (PgCat once
 * released it at CopyInResponse; PgBouncer up to 1.25.2 could leave a server stuck "active"
 * after a COPY error followed by the client's late CopyData/CopyDone, pgbouncer/pgbouncer#1471).
 * Every step of A is bounded by the step bound: a COPY whose answer never comes is `stalled`.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { readLanding } from '../../engine/judging/landing.js';
import { firstWireTrouble } from '../../engine/judging/wire-trouble.js';
import { markersFor } from '../../engine/record/markers.js';
import { errorText, numberOf, sqlError, stepOf, valueOf } from '../../engine/record/step-reading.js';
import { LAND_ON_A, LANDING_TAGS } from '../../engine/record/tags.js';
import { sleep } from '../../engine/record/time.js';
import { holdBackend, letGo } from '../../engine/steering/hold-backend.js';
import { dismiss } from '../../engine/steering/holders.js';
import { landOn } from '../../engine/steering/land-on.js';
import type { Scenario } from '../../engine/steering/scenario.js';
import { wireSkipReason, type SyncAnswer, type WireSession } from '../../engine/session/wire-session.js';
import * as fe from '../../engine/wire/frontend.js';
import type { Discovery, Facts, Judgement, StepRecord } from '../../engine/types.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
export const COPY_TAGS = {
  txIn: 'tx.copy-in',
  txDone: 'tx.copy-done',
  txFailIn: 'tx.fail-in',
  txFail: 'tx.copy-fail',
  txOut: 'tx.copy-out',
  /** A note: what COPY TO STDOUT sent, as text. */
  txCopied: 'tx.copied-out',
  txCommit: 'tx.commit',
  lateIn: `late:${LANDING_TAGS.create}`,
  lateData: 'late.copy-data',
  /** Clients competing for the pool while A's late COPY is open: none may get A's backend. */
  during: 'during.take',
  lateDone: 'late.copy-done',
  errorIn: `error:${LANDING_TAGS.create}`,
  errorRow: 'error.bad-row',
  errorLate: 'error.late',
  errorRollback: 'error.rollback',
} as const;

/** The phases after which another client must get A's backend, idle. */
export const COPY_PHASES = ['late:', 'error:'] as const;

/** A's steps that wait for an answer (the late messages of `error` expect none). */
const ANSWERED = [
  COPY_TAGS.txIn,
  COPY_TAGS.txDone,
  COPY_TAGS.txFailIn,
  COPY_TAGS.txFail,
  COPY_TAGS.txOut,
  COPY_TAGS.txCommit,
  COPY_TAGS.lateIn,
  COPY_TAGS.lateDone,
  COPY_TAGS.errorIn,
  COPY_TAGS.errorRow,
  COPY_TAGS.errorRollback,
];

const ADVICE_UPGRADE =
  'PgBouncer fixed late COPY messages that left a server stuck after a COPY error in the release after 1.25.2 (pgbouncer/pgbouncer#1471)';

const OUTCOMES = {
  works: {
    means:
      "every COPY ended as on PostgreSQL (rows in and out, the CopyFail's rows not landed, a late CopyDone accepted), and another client then got A's backend idle (or nobody else could get it: a dedicated backend)",
  },
  mismatched: {
    means:
      'a COPY answered other than PostgreSQL does: rows that should have landed did not (or the reverse), other rows out, another error',
    advice:
      'The pooler changes what COPY does: report it to its maintainers with the record, and run bulk loads over a direct connection meanwhile.',
  },
  pinned: {
    means:
      "after A's COPY ended and A sat idle, no other client could get A's backend (proven idle on the server): the pooler kept it for A",
    advice: `The pooler keeps a server after a COPY, so the pool shrinks with every one: ${ADVICE_UPGRADE}; meanwhile run COPY inside BEGIN/COMMIT, or over a direct connection.`,
  },
  inherited: {
    means:
      "another client got A's backend in the middle of A's COPY, or the next client on it found it still in A's COPY or transaction (an error, a warning, A's transaction id or table)",
    advice: `The pooler hands a server on before its COPY ended: upgrade it (${ADVICE_UPGRADE}), or run COPY over a direct connection.`,
  },
  rejected: {
    means: 'the COPY statement itself was refused with an SQLSTATE',
    advice: 'The pooler refuses COPY: run bulk loads and exports over a direct connection.',
  },
  stalled: {
    means:
      "a COPY step's answer did not arrive within the bound (the step and how long pooltest waited are in the reason)",
    advice:
      'The pooler does not pass on or answer the end of a COPY (CopyDone, CopyFail): the client hangs until it times out. Report it with the record; run COPY over a direct connection meanwhile.',
  },
  dropped: {
    means: 'the pooler closed or reset the connection during a COPY',
    advice:
      'The pooler drops clients in the middle of a COPY: report it with the record; run COPY over a direct connection meanwhile.',
  },
} satisfies Record<string, OutcomeInfo>;

type Label = keyof typeof OUTCOMES;

export const inOut = defineCheck({
  id: 'copy/in-out',
  title: 'COPY in and out works as on PostgreSQL, and frees its backend for the next client',
  summary:
    'COPY FROM STDIN and TO STDOUT inside and outside BEGIN, a CopyFail, a late CopyDone, late CopyData after an error; then another client on that backend',
  severity: 'availability',
  docs: [
    'https://www.postgresql.org/docs/15/protocol-flow.html#PROTOCOL-COPY',
    'https://github.com/pgbouncer/pgbouncer/pull/1471 (late COPY messages, transaction mode)',
  ],
  outcomes: OUTCOMES,
  uses: LAND_ON_A,
  skipIf: (ctx) => wireSkipReason(ctx.target),
  async scenario(scn) {
    const t = markersFor(scn.ctx.runId, this.id).table;
    const a = await scn.openWire('A');
    if (!(await copyInTransaction(scn, a, `${t}_tx`))) return scn.evidenceComplete();
    const late = await lateCopyDone(scn, a, `${t}_late`);
    if (late !== null) await letGo(await holdBackend(scn, COPY_PHASES[0], late, lookAt(`${t}_late`)));
    const error = await lateAfterError(scn, a, `${t}_err`);
    if (error !== null) await letGo(await holdBackend(scn, COPY_PHASES[1], error, lookAt(`${t}_err`)));
    scn.evidenceComplete();
  },
  judge: judgeCopy,
  evidence: (j) => j.reason,
});

/** What the next client on A's backend reads: A's transaction id if it sits in it, A's table if it outlived it. */
function lookAt(table: string): string[] {
  return [`SELECT txid_current_if_assigned()::text AS xid, to_regclass('pg_temp.${table}')::text AS leftover`];
}

/** CopyData texts from an answer, joined. */
function copiedOut(answer: SyncAnswer | undefined): string {
  return (answer?.items ?? []).map((i) => (i.kind === 'CopyData' ? i.data.toString('utf8') : '')).join('');
}

/** The explicit-transaction phase; false when A never got into COPY (nothing after it can run). */
async function copyInTransaction(scn: Scenario, a: WireSession, table: string): Promise<boolean> {
  const start = await a.exchange(COPY_TAGS.txIn, [
    fe.query(
      `BEGIN; SELECT pg_backend_pid() AS pid; CREATE TEMP TABLE ${table} (n int) ON COMMIT DROP; COPY ${table} FROM STDIN`,
    ),
  ]);
  if (start.end.kind !== 'copy') return false;
  await a.exchange(COPY_TAGS.txDone, [fe.copyData('1\n2\n3\n'), fe.copyDone()]);
  const failIn = await a.exchange(COPY_TAGS.txFailIn, [fe.query(`SAVEPOINT pooltest_copy; COPY ${table} FROM STDIN`)]);
  if (failIn.end.kind === 'copy')
    await a.exchange(COPY_TAGS.txFail, [fe.copyData('4\n'), fe.copyFail('pooltest: the client gave up')]);
  const out = await a.exchange(COPY_TAGS.txOut, [
    fe.query(
      `ROLLBACK TO SAVEPOINT pooltest_copy; SELECT pg_backend_pid() AS pid, count(*)::int AS landed FROM ${table}; COPY (SELECT n FROM ${table} ORDER BY n) TO STDOUT`,
    ),
  ]);
  scn.note('A', COPY_TAGS.txCopied, '(what COPY TO STDOUT sent)', { facts: { copied: copiedOut(out.answers[0]) } });
  await a.exchange(COPY_TAGS.txCommit, [fe.query('COMMIT; SELECT pg_backend_pid() AS pid')]);
  return a.alive;
}

/**
 * The late CopyDone, outside BEGIN: the rows go first, the CopyDone after a pause far longer
 * than a round trip (a client producing its data slowly), well within the step bound. Returns
 * A's backend when the COPY ended and A is idle, for the next client to land on.
 */
async function lateCopyDone(scn: Scenario, a: WireSession, table: string): Promise<number | null> {
  const start = await a.exchange(COPY_TAGS.lateIn, [
    fe.query(
      `SELECT pg_backend_pid() AS pid; CREATE TEMP TABLE ${table} (n int) ON COMMIT DROP; COPY ${table} FROM STDIN; SELECT count(*)::int AS landed FROM ${table}`,
    ),
  ]);
  const pid = start.steps[0]?.pid ?? null;
  if (start.end.kind !== 'copy') return null;
  a.sendOnly(COPY_TAGS.lateData, [fe.copyData('5\n6\n')]);
  // Meanwhile other clients compete for the pool until one is queued: a pooler that released
  // A's server at CopyInResponse would hand it to one of them in the middle of the COPY. A
  // pooler that refuses logins beyond its pool instead of queueing them (discovery's
  // clientLimit; pgagroal 1.6.0 with a malformed 53300) gets one competitor, which the other
  // backend serves: a refusal would say nothing of A's backend. A login that throws (a
  // malformed refusal, recorded as such) must not end the scenario in the middle of A's COPY.
  const competing =
    pid === null
      ? null
      : landOn(scn, pid, {
          tag: COPY_TAGS.during,
          prefix: 'C',
          probe: false,
          ...(scn.discovery.clientLimit ? { maxTries: 1 } : {}),
        }).catch(() => null);
  const [during] = await Promise.all([competing, sleep(latePauseMs(scn))]);
  const done = await a.exchange(COPY_TAGS.lateDone, [fe.copyDone()]);
  await dismiss([during?.observer, ...(during?.others ?? [])]);
  return done.end.kind === 'complete' && a.txStatus === 'I' ? pid : null;
}

/**
 * A COPY the server fails on a bad row while the client still streams: its last CopyData and
 * CopyDone arrive after the server's error (PostgreSQL drops them), then the client rolls back.
 */
async function lateAfterError(scn: Scenario, a: WireSession, table: string): Promise<number | null> {
  const start = await a.exchange(COPY_TAGS.errorIn, [
    fe.query(
      `BEGIN; SELECT pg_backend_pid() AS pid; CREATE TEMP TABLE ${table} (n int) ON COMMIT DROP; COPY ${table} FROM STDIN`,
    ),
  ]);
  const pid = start.steps[0]?.pid ?? null;
  if (start.end.kind !== 'copy') return null;
  // The bad row makes the server answer ErrorResponse and ReadyForQuery without waiting for the end.
  await a.exchange(COPY_TAGS.errorRow, [fe.copyData('7\nnot a number\n')], { readies: 1 });
  a.sendOnly(COPY_TAGS.errorLate, [fe.copyData('8\n'), fe.copyDone()]);
  await sleep(latePauseMs(scn) / 4);
  const rollback = await a.exchange(COPY_TAGS.errorRollback, [fe.query('ROLLBACK; SELECT pg_backend_pid() AS pid')]);
  return rollback.end.kind === 'complete' && a.txStatus === 'I' ? pid : null;
}

/** Longer than a pooler's turnaround (ten round trips, at least half a second), a quarter of the step bound at most. */
function latePauseMs(scn: Scenario): number {
  return Math.min(scn.ctx.bounds.stepMs / 4, Math.max(500, 10 * scn.discovery.rttMs));
}

/** What PostgreSQL answers to each step, where the judge compares. */
interface Expect {
  tag: string;
  status?: string;
  code?: string;
  values?: Record<string, number>;
}

const EXPECTED: readonly Expect[] = [
  { tag: COPY_TAGS.txDone, status: 'T' },
  { tag: COPY_TAGS.txFail, status: 'E', code: '57014' },
  { tag: COPY_TAGS.txOut, status: 'T', values: { landed: 3 } },
  { tag: COPY_TAGS.txCommit, status: 'I' },
  { tag: COPY_TAGS.lateDone, status: 'I', values: { landed: 2 } },
  { tag: COPY_TAGS.errorRow, status: 'E', code: '22P02' },
  { tag: COPY_TAGS.errorRollback, status: 'I' },
];

/** How a step differs from PostgreSQL's answer, or null. */
function differs(step: StepRecord | undefined, e: Expect): string | null {
  if (!step) return `${e.tag}: no record`;
  if ((step.error?.code ?? undefined) !== e.code)
    return `${e.tag}: ${step.error ? errorText(step) : 'no error'} where PostgreSQL answers ${e.code ?? 'without one'}`;
  if (e.status && step.txStatus !== e.status)
    return `${e.tag}: transaction status ${step.txStatus ?? 'none'} where PostgreSQL answers ${e.status}`;
  for (const [column, want] of Object.entries(e.values ?? {})) {
    const got = numberOf(step, column);
    if (got !== want) return `${e.tag}: ${column} = ${got ?? 'none'} where PostgreSQL gives ${want}`;
  }
  return null;
}

/** What the next client on A's backend after `phase` shows. */
function landingAfter(
  steps: readonly StepRecord[],
  discovery: Discovery,
  phase: string,
): { label: 'works' | 'pinned' | 'inherited' | null; why: string } {
  const b = stepOf(steps, `${phase}${LANDING_TAGS.create}`)?.pid;
  if (typeof b !== 'number') return { label: null, why: `${phase} A's COPY read no pid` };
  const reading = readLanding(steps, discovery, b, phase);
  const name = phase.slice(0, -1);
  if (reading.placed) {
    const take = steps.find((s) => s.tag === `${phase}${LANDING_TAGS.observe}` && s.pid === b)!;
    const warned = take.notices.find((n) => n.code === '25001');
    const xid = valueOf(take, 'xid');
    const leftover = valueOf(take, 'leftover');
    if (take.error)
      return { label: 'inherited', why: `after ${name}, the next client on backend ${b} got ${errorText(take)}` };
    if (warned)
      return {
        label: 'inherited',
        why: `after ${name}, the next client's BEGIN on backend ${b} warned: ${warned.message}`,
      };
    if (typeof xid === 'string' || typeof leftover === 'string')
      return {
        label: 'inherited',
        why: `after ${name}, the next client on backend ${b} found ${typeof xid === 'string' ? `transaction ${xid}` : `A's table ${String(leftover)}`}`,
      };
    return { label: 'works', why: `after ${name}, another client got backend ${b}, idle` };
  }
  // Kept from others while A stays connected is what session pooling promises; in transaction
  // pooling an idle A's backend must go to the next client.
  const ownBackend =
    reading.reservedBy === 'direct' ||
    reading.reservedBy === 'pool' ||
    (reading.reservedBy === 'queue' && discovery.mode === 'session');
  if (ownBackend)
    return { label: 'works', why: `backend ${b} is A's own (${discovery.mode}): nobody else could get it` };
  if (reading.reservedBy === 'queue')
    return {
      label: 'pinned',
      why: `after ${name} ended and A sat idle, a client queued for backend ${b}, which the server showed idle`,
    };
  return { label: null, why: `after ${name}: ${reading.doubt}` };
}

/**
 * In order: a step of A without its answers (`stalled`, `dropped`; a protocol violation:
 * inconclusive, the engine reports it); the COPY
 * itself refused (`rejected`); an answer other than PostgreSQL's (`mismatched`); then the next
 * client on A's backend after the late CopyDone and after the late messages that followed an
 * error: found it busy (`inherited`), could not get it though it was idle (`pinned`), got it
 * idle or could never share it (`works`).
 */
export function judgeCopy(steps: readonly StepRecord[], discovery: Discovery): Judgement<Label> {
  const copied = valueOf(stepOf(steps, COPY_TAGS.txCopied), 'copied');
  const facts: Facts = {
    txBackend: stepOf(steps, COPY_TAGS.txIn)?.pid ?? null,
    lateBackend: stepOf(steps, COPY_TAGS.lateIn)?.pid ?? null,
    errorBackend: stepOf(steps, COPY_TAGS.errorIn)?.pid ?? null,
    landedInTransaction: numberOf(stepOf(steps, COPY_TAGS.txOut), 'landed'),
    landedLate: numberOf(stepOf(steps, COPY_TAGS.lateDone), 'landed'),
    copiedOut: typeof copied === 'string' ? copied : null,
    copyFailError: errorText(stepOf(steps, COPY_TAGS.txFail)),
    badRowError: errorText(stepOf(steps, COPY_TAGS.errorRow)),
  };
  const trouble = firstWireTrouble(steps, 'A', ANSWERED);
  if (trouble)
    return trouble.label
      ? { outcome: trouble.label, facts, reason: trouble.reason }
      : { outcome: null, facts, reason: trouble.reason };
  for (const tag of [COPY_TAGS.txIn, COPY_TAGS.txFailIn, COPY_TAGS.lateIn, COPY_TAGS.errorIn]) {
    const s = stepOf(steps, tag);
    if (sqlError(s)) return { outcome: 'rejected', facts, reason: `${tag} was refused: ${errorText(s)}` };
  }
  if (!stepOf(steps, COPY_TAGS.txIn)) return { outcome: null, facts, reason: "no record of A's first COPY" };
  const b = stepOf(steps, COPY_TAGS.lateIn)?.pid;
  const midCopy = steps.find((s) => s.tag === COPY_TAGS.during && !s.timedOut && s.pid !== null && s.pid === b);
  facts.handedOutMidCopy = midCopy !== undefined;
  if (midCopy)
    return {
      outcome: 'inherited',
      facts,
      reason: `while A's COPY was open on backend ${midCopy.pid}, another client (${midCopy.session}) was given it${midCopy.error ? `: ${errorText(midCopy)}` : ''}`,
    };
  for (const e of EXPECTED) {
    const d = differs(stepOf(steps, e.tag), e);
    if (d) return { outcome: 'mismatched', facts, reason: d };
  }
  if (copied !== '1\n2\n3\n')
    return {
      outcome: 'mismatched',
      facts,
      reason: `COPY TO STDOUT sent ${JSON.stringify(copied ?? null)} where PostgreSQL sends "1\\n2\\n3\\n"`,
    };
  const after = COPY_PHASES.map((p) => landingAfter(steps, discovery, p));
  facts.afterLate = after[0]!.label;
  facts.afterError = after[1]!.label;
  const bad = after.find((x) => x.label === 'inherited') ?? after.find((x) => x.label === 'pinned');
  if (bad) return { outcome: bad.label!, facts, reason: bad.why };
  const open = after.find((x) => x.label === null);
  if (open) return { outcome: null, facts, reason: open.why };
  return {
    outcome: 'works',
    facts,
    reason: `every COPY answered as PostgreSQL does; ${[...new Set(after.map((x) => x.why))].join('; ')}`,
  };
}
