/**
 * statement/transaction-block: does a transaction sent the way drivers send it, one message
 * per statement, stay one transaction on one backend?
 *
 *   A:  BEGIN
 *   A:  SELECT pg_backend_pid() AS pid, txid_current()::text AS xid        -- backend b, xid x
 *   A:  SELECT pg_backend_pid() AS pid, txid_current()::text AS xid        -- still b and x?
 *   A:  COMMIT
 *   S:  BEGIN; SELECT pg_backend_pid() AS pid, txid_current()::text AS xid; COMMIT
 *       -- the same transaction as one message, from a fresh client
 *
 * `txid_current()` gives the transaction an id, so two statements report the same id only if
 * they ran in the same transaction. The one-message form is context for the advice: statement
 * pooling refuses the first form but passes the second, which ends idle.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { answered, errorText, refused, stepOf, valueOf } from '../../engine/record/step-reading.js';
import type { Judgement, StepRecord } from '../../engine/types.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  begin: 'A.begin',
  first: 'A.first',
  second: 'A.second',
  commit: 'A.commit',
  /** The same transaction sent as one message by another client (context for the advice). */
  oneMessage: 'S.one-message',
} as const;

const READ = 'SELECT pg_backend_pid() AS pid, txid_current()::text AS xid';

/** The check's labels, declared before it so that its judge, written apart, returns only these. */
const OUTCOMES = {
  allowed: { means: 'the statements ran in one transaction on one backend' },
  rejected: {
    means: 'the transaction block was refused',
    advice:
      'This pooler refuses transactions that span several messages (statement pooling): use a transaction-pooling endpoint for code that needs BEGIN ... COMMIT, or send the whole transaction as one query string or one function call.',
  },
  split: {
    means: 'BEGIN was accepted, but the statements ran in different transactions or backends (atomicity lost)',
    advice:
      'The pooler ran the statements of one transaction on different transactions or backends: do not use it for transactional work.',
  },
} satisfies Record<string, OutcomeInfo>;

/** What the judge may return: the labels above. */
type Label = keyof typeof OUTCOMES;

export const transactionBlock = defineCheck({
  id: 'statement/transaction-block',
  title: 'a transaction sent one statement per message runs as one transaction on one backend',
  severity: 'correctness',
  docs: [
    'https://www.pgbouncer.org/config.html#pool_mode (statement: multi-statement transactions are disallowed)',
    'https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-MULTI-STATEMENT',
  ],
  summary: '`BEGIN`, two statements, `COMMIT` as separate messages',
  outcomes: OUTCOMES,
  async scenario(scn) {
    const a = await scn.open('A');
    const begin = await a.run(TAGS.begin, 'BEGIN');
    if (!begin.error) {
      await a.run(TAGS.first, READ);
      await a.run(TAGS.second, READ);
      await a.run(TAGS.commit, 'COMMIT');
    }
    const s = await scn.open('S');
    await s.run(TAGS.oneMessage, `BEGIN; ${READ}; COMMIT`);
  },
  judge: judgeTransactionBlock,
});

/**
 * - The first of BEGIN, the two statements and COMMIT that fails with an SQLSTATE, or on which
 *   the pooler closes the connection: `rejected`, with the error verbatim.
 * - Either statement did not answer with a pid and a transaction id: inconclusive.
 * - The two statements report different backends or transaction ids: `split`.
 * - Otherwise `allowed`, provided COMMIT answered.
 */
export function judgeTransactionBlock(steps: readonly StepRecord[]): Judgement<Label> {
  const one = stepOf(steps, TAGS.oneMessage);
  const oneMessageAllowed = one ? answered(one) && !one.error && one.pid !== null : null;
  for (const tag of [TAGS.begin, TAGS.first, TAGS.second, TAGS.commit]) {
    const s = stepOf(steps, tag);
    if (refused(s)) {
      return {
        outcome: 'rejected',
        facts: { refusedAt: tag, rejectedWith: errorText(s), oneMessageAllowed },
        reason: `${tag.slice(2).toUpperCase()} was refused: ${errorText(s)}`,
      };
    }
  }
  const first = stepOf(steps, TAGS.first);
  const second = stepOf(steps, TAGS.second);
  const commit = stepOf(steps, TAGS.commit);
  const xid1 = valueOf(first, 'xid');
  const xid2 = valueOf(second, 'xid');
  const facts = {
    firstBackend: first?.pid ?? null,
    secondBackend: second?.pid ?? null,
    firstXid: typeof xid1 === 'string' ? xid1 : null,
    secondXid: typeof xid2 === 'string' ? xid2 : null,
    oneMessageAllowed,
  };
  for (const s of [first, second]) {
    if (!answered(s) || s.error || s.pid === null || typeof valueOf(s, 'xid') !== 'string') {
      return {
        outcome: null,
        facts,
        reason: `a statement inside the transaction did not answer: ${errorText(s) ?? (s ? 'no pid or transaction id' : 'missing')}`,
      };
    }
  }
  if (facts.firstBackend !== facts.secondBackend || facts.firstXid !== facts.secondXid) {
    return {
      outcome: 'split',
      facts,
      reason: `BEGIN was accepted but the statements ran on backend ${facts.firstBackend} (xid ${facts.firstXid}) and ${facts.secondBackend} (xid ${facts.secondXid})`,
    };
  }
  if (!answered(commit) || commit.error)
    return { outcome: null, facts, reason: `COMMIT did not answer: ${errorText(commit) ?? 'missing'}` };
  return {
    outcome: 'allowed',
    facts,
    reason: `both statements ran in transaction ${facts.firstXid} on backend ${facts.firstBackend}`,
  };
}
