/**
 * The judge of the batch phase (batch-scenario.ts): a pure function over the record. Each batch
 * is judged on its own, in order, from the agent's answer and the rows its statements wrote
 * (run number, statement, backend pid, transaction id):
 *
 * | batch | label |
 * |---|---|
 * | no answer within the step bound (the agent was killed) | `stalled`, with how long pooltest waited |
 * | the driver raised the server's error (an SQLSTATE) | `failed` |
 * | sent in one transaction, its rows show more than one backend or transaction | `split` |
 * | answered, every row written, a server error the driver hid (its own log, or the server's) | `retried` |
 * | answered, every row written | `works` |
 *
 * The phase takes the first breaking batch (`failed`, `stalled`, `split`) in run order. Else it
 * is inconclusive when a batch is (an error without SQLSTATE, rows missing or unreadable), or,
 * where clients share backends, when no competitor ran on a backend of the batches while they
 * ran (nothing competed for the pool, so nothing was tested); else `retried` when a batch was,
 * else `works`. A batch outside a transaction may run its statements on several backends (each
 * has its own Sync): that is counted in the facts (`batchesOnSeveralBackends`), not a failure.
 * A driver without a batch API (its agent answers `Unsupported`) is inconclusive with the reason.
 */
import { stepOf, stepsOf } from '../engine/record/step-reading.js';
import { sharesBackends } from '../engine/judging/landing.js';
import type { Discovery, Facts, Judgement, StepRecord } from '../engine/types.js';
import { hiddenErrors } from './hidden-errors.js';
import { DRIVER_TAGS } from './tags.js';

const TAGS = DRIVER_TAGS.batch;
/** How an agent's answer says the driver has no batch API (toStep: `<type>: <message>`). */
const UNSUPPORTED = 'Unsupported: ';

type Row = Record<string, unknown>;

interface BatchVerdict {
  label: 'works' | 'retried' | 'failed' | 'stalled' | 'split' | null;
  reason: string;
  pids: number[];
  hidden: string | null;
}

/** What batch-scenario.ts noted before a batch: its run number, whether in a transaction, its size. */
function intentOf(step: StepRecord | undefined): { run: number; tx: boolean; statements: number } | null {
  const f = step?.results[0]?.[0];
  if (!f || typeof f.run !== 'number' || typeof f.tx !== 'boolean' || typeof f.statements !== 'number') return null;
  return { run: f.run, tx: f.tx, statements: f.statements };
}

function judgeOne(
  step: StepRecord,
  intent: { run: number; tx: boolean; statements: number },
  rows: Row[] | null,
): BatchVerdict {
  const name = `batch ${intent.run} (${intent.tx ? 'in a transaction' : 'autocommit'})`;
  const none = { pids: [], hidden: null };
  if (step.timedOut) {
    const logged = hiddenErrors(step);
    const meanwhile =
      logged.length > 0 ? `; meanwhile the server logged ${logged.length} error(s), first: ${logged[0]}` : '';
    return {
      label: 'stalled',
      reason: `${name} got no answer within ${Math.round(step.durationMs)} ms: pooltest killed the agent${meanwhile}`,
      ...none,
    };
  }
  if (step.error?.code)
    return { label: 'failed', reason: `${name} failed: ${step.error.code} ${step.error.message}`, ...none };
  if (step.error)
    return { label: null, reason: `${name} failed without a server error: ${step.error.message}`, ...none };
  if (rows === null) return { label: null, reason: "the batches' rows could not be read", ...none };
  const mine = rows.filter((r) => r.batch === intent.run);
  if (mine.length !== intent.statements)
    return {
      label: null,
      reason: `${name} answered, but the table holds ${mine.length} of its ${intent.statements} rows`,
      ...none,
    };
  const pids = [...new Set(mine.map((r) => Number(r.pid)))];
  const xids = new Set(mine.map((r) => String(r.xid)));
  const where = `backend${pids.length > 1 ? 's' : ''} ${pids.join(', ')}, in ${xids.size} transaction${xids.size > 1 ? 's' : ''}`;
  if (intent.tx && (pids.length > 1 || xids.size > 1))
    return {
      label: 'split',
      reason: `${name}: its ${intent.statements} statements ran on ${where}`,
      pids,
      hidden: null,
    };
  const hidden = hiddenErrors(step)[0] ?? null;
  if (hidden !== null)
    return { label: 'retried', reason: `${name} ran on ${where}, after the driver received ${hidden}`, pids, hidden };
  return { label: 'works', reason: `${name} ran on ${where}`, pids, hidden: null };
}

export function judgeBatch(steps: readonly StepRecord[], discovery: Discovery): Judgement {
  const facts: Facts = {};
  const none = (reason: string): Judgement => ({ outcome: null, facts, reason });
  const table = stepOf(steps, TAGS.table);
  if (!table) return none('the batch phase did not run');
  if (table.error || table.timedOut)
    return none(`the batches' table could not be created: ${table.error?.message ?? 'no answer within its bound'}`);
  const runs = stepsOf(steps, TAGS.run);
  const intents = stepsOf(steps, TAGS.intent);
  const unsupported = runs[0]?.error?.message.startsWith(UNSUPPORTED) ? runs[0].error.message : null;
  if (unsupported !== null) {
    facts.batchApi = false;
    return none(`not run: ${unsupported.slice(UNSUPPORTED.length)}`);
  }
  if (runs.length === 0) return none('no batch was sent');
  const read = stepOf(steps, TAGS.rows);
  const rows = read && !read.error && !read.timedOut ? (read.results[0] ?? []) : null;
  const verdicts: BatchVerdict[] = [];
  for (const [i, step] of runs.entries()) {
    const intent = intentOf(intents[i]);
    if (!intent) return none(`batch ${i + 1} has no recorded intent`);
    verdicts.push(judgeOne(step, intent, rows));
  }
  facts.batches = runs.length;
  facts.inTransaction = intents.filter((s) => intentOf(s)?.tx === true).length;
  facts.batchesOnSeveralBackends = verdicts.filter((v) => v.pids.length > 1).length;
  const stalled = runs.find((s) => s.timedOut);
  if (stalled) facts.waitedMs = Math.round(stalled.durationMs);
  const breaking = verdicts.find((v) => v.label === 'failed' || v.label === 'stalled' || v.label === 'split');
  if (breaking?.label) {
    const before = verdicts.indexOf(breaking);
    return {
      outcome: breaking.label,
      facts,
      reason: `${breaking.reason}${before > 0 ? ` (the ${before} batch${before > 1 ? 'es' : ''} before it answered)` : ''}`,
    };
  }
  const unsure = verdicts.find((v) => v.label === null);
  if (unsure) return none(unsure.reason);
  const backends = new Set(verdicts.flatMap((v) => v.pids));
  facts.batchBackends = [...backends].join(',');
  if (sharesBackends(discovery)) {
    // Competition is proven by the record: a competitor answered on a backend of the batches
    // while the batches ran (between the first batch's start and the last one's end).
    const from = runs[0]!.startMs;
    const last = runs[runs.length - 1]!;
    const to = last.startMs + last.durationMs;
    const rivals = stepsOf(steps, TAGS.compete).filter(
      (s) => s.pid !== null && backends.has(s.pid) && !s.error && s.startMs + s.durationMs >= from && s.startMs <= to,
    );
    facts.competitorUses = rivals.length;
    if (rivals.length === 0)
      return none(
        `no competitor ran on the batches' backends (${facts.batchBackends}) while they ran: nothing competed for the pool`,
      );
  }
  const retried = verdicts.find((v) => v.label === 'retried');
  facts.hiddenServerErrors = verdicts.filter((v) => v.hidden !== null).length;
  if (retried?.hidden) facts.hiddenError = retried.hidden;
  const meanwhile =
    facts.competitorUses !== undefined
      ? `, with competitors on those backends ${facts.competitorUses} times meanwhile`
      : ' (no competitors: connections do not share backends here)';
  const summary = `${runs.length} batches of the driver's own batch call answered (${facts.inTransaction} in a transaction), on backends ${facts.batchBackends}${meanwhile}`;
  if (retried) return { outcome: 'retried', facts, reason: `${summary}; ${retried.reason}` };
  return { outcome: 'works', facts, reason: summary };
}
