/**
 * A log worker classifies with the catalogue's claims sent to it as data (audit-knowledge.ts)
 * instead of the catalogue itself. The data, cloned as a worker receives it, must answer every
 * question the classifiers ask exactly as the catalogue does; a control shows the comparison
 * sees a claim that reached the wrong check.
 */
import { expect, test } from 'vitest';
import { CLAIMS, knowledgeForWorkers, type AuditKnowledge } from '../../audit/audit-knowledge.js';
import { AUDIT_CHECKS, checkPriority } from '../../audit/audit-checks.js';
import {
  claimIndex,
  CLEANUP_FUNCTIONS,
  CLEANUP_STATEMENTS,
  SETUP_FUNCTIONS,
  STATE_FUNCTIONS,
  STATE_STATEMENTS,
} from '../../engine/record/audit-claims.js';
import { CLAIMS as CATALOGUE_CLAIMS } from '../../suites/catalogue.js';

/** Every answer of a claim index, for the whole vocabulary and some settings. */
function answers(index: Pick<typeof CLAIMS, 'checkOfStatement' | 'checkOfSetting' | 'functionClaim'>): string[] {
  const settings = [null, 'search_path', 'timezone', 'statement_timeout', 'lock_timeout', 'role', 'app.tenant_id', 'x'];
  return [
    ...[...STATE_STATEMENTS, ...CLEANUP_STATEMENTS].map((k) => `${k}: ${index.checkOfStatement(k)}`),
    ...[...STATE_FUNCTIONS, ...SETUP_FUNCTIONS, ...CLEANUP_FUNCTIONS, 'now'].map(
      (f) => `${f}(): ${JSON.stringify(index.functionClaim(f))}`,
    ),
    ...settings.map((s) => `SET ${s}: ${index.checkOfSetting(s)}`),
  ];
}

test("the claims and priorities sent to a worker answer as the catalogue's", async () => {
  // What a worker receives: a structured clone (workerData).
  const sent: AuditKnowledge = structuredClone(await knowledgeForWorkers());
  expect(answers(claimIndex(sent.claiming))).toEqual(answers(CATALOGUE_CLAIMS));
  // The main thread's own index is the catalogue's.
  expect(CLAIMS).toBe(CATALOGUE_CLAIMS);
  expect(sent.order).toEqual(AUDIT_CHECKS.map((c) => c.id));
  for (const id of sent.order) expect(sent.order.indexOf(id)).toBe(checkPriority(id));
});

test('control: a claim that reaches the wrong check, and a priority order out of step, are seen', async () => {
  const sent: AuditKnowledge = structuredClone(await knowledgeForWorkers());
  const owner = sent.claiming.find((c) => c.audit?.claims.settings?.names?.includes('search_path'));
  expect(owner).toBeDefined();
  (owner as { id: string }).id = 'another-check';
  expect(answers(claimIndex(sent.claiming))).not.toEqual(answers(CATALOGUE_CLAIMS));
  expect(sent.order.reverse()).not.toEqual(AUDIT_CHECKS.map((c) => c.id));
});
