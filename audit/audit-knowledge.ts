/**
 * What the classifying code needs from the catalogue, in one place: which check claims a
 * statement kind, setting or function (the checks' `audit.claims`) and the checks' priority
 * order (audit-checks.ts). In the main thread this is the catalogue itself. A log worker
 * (log-worker.ts) gets the same facts as plain data from the main thread instead: importing
 * the catalogue means importing every check and, through them, the engine and `pg`, which was
 * most of a worker's start-up (measured: 0.26 to 0.40 CPU s of its 0.4 to 0.5 s of imports).
 * The worker rebuilds the claim index from the data with the same function, so both threads
 * answer alike; test/audit/parallel-log.test.ts compares their reports.
 *
 * The choice is made once, at import (a top-level await): nothing can ask before it is made.
 */
import { isMainThread, workerData } from 'node:worker_threads';
import { claimIndex, type ClaimIndex, type ClaimingCheck } from '../engine/record/audit-claims.js';
import type { AuditCheckId } from './audit-types.js';

/** The facts as plain data, as the main thread sends them to a worker. */
export interface AuditKnowledge {
  claiming: ClaimingCheck<AuditCheckId>[];
  /** Audited check ids, most important first. */
  order: AuditCheckId[];
}

/** The key of {@link AuditKnowledge} in a log worker's workerData. */
export const KNOWLEDGE_KEY = 'auditKnowledge';

function sent(): AuditKnowledge | null {
  if (isMainThread || typeof workerData !== 'object' || workerData === null) return null;
  return (workerData as Record<string, AuditKnowledge | undefined>)[KNOWLEDGE_KEY] ?? null;
}

async function load(): Promise<{ claims: ClaimIndex<AuditCheckId>; order: readonly AuditCheckId[] }> {
  const data = sent();
  if (data !== null) return { claims: claimIndex(data.claiming), order: data.order };
  const [{ CLAIMS }, { AUDIT_CHECKS }] = await Promise.all([
    import('../suites/catalogue.js'),
    import('./audit-checks.js'),
  ]);
  return { claims: CLAIMS, order: AUDIT_CHECKS.map((c) => c.id) };
}

const known = await load();
const rank = new Map<string, number>(known.order.map((id, i) => [id, i]));

/** Which check claims what the classifiers recognise. */
export const CLAIMS: ClaimIndex<AuditCheckId> = known.claims;

/** Audited check ids, most important first (every piece of session state the audit knows). */
export const AUDIT_CHECK_IDS: readonly AuditCheckId[] = known.order;

/** Lower is more important; -1 for an id the audit does not know (as audit-checks.ts says). */
export function checkPriority(id: AuditCheckId): number {
  return rank.get(id) ?? -1;
}

/** The facts to send to a worker (main thread). */
export async function knowledgeForWorkers(): Promise<AuditKnowledge> {
  const { CATALOGUE } = await import('../suites/catalogue.js');
  // Only the claims: the rest of a check (its run code, its texts) is neither needed nor cloneable.
  const claiming = CATALOGUE.map((c): ClaimingCheck<AuditCheckId> => {
    const audit = (c as ClaimingCheck<AuditCheckId>).audit;
    return audit === undefined ? { id: c.id } : { id: c.id, audit: { claims: audit.claims } };
  });
  return { claiming, order: [...AUDIT_CHECK_IDS] };
}
