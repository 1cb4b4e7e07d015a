/**
 * A log read by worker threads (`--jobs N`) gives the report one thread gives: the same
 * findings with the same counts, first sources (the file's own line numbers) and order, the
 * same cleanups, unparsed samples, input summary and warnings. Only `generatedAt`,
 * `summary.durationMs` and `summary.parsedTexts` may differ (each worker has its own cache of
 * texts, so a text repeated across parts is classified once per part). Workers run from the
 * built code, so the parallel run drives the built CLI; the one-thread run is in-process.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { audit } from '../../audit/audit.js';
import type { AuditReport } from '../../audit/audit-types.js';
import { MULTI_LINE, REPEATED, inlined } from '../../bench/audit-log-mix.js';
import { runCli } from '../support/cli.js';
import { useScratchDir } from './audit-helpers.js';

const scratch = useScratchDir('parallel');

const P = (i: number): string =>
  `2026-01-01 10:00:${String(i % 60).padStart(2, '0')}.000 UTC [${100 + (i % 7)}] app@db `;

/** Multi-line entries everywhere (a cut must never split one), unparsed texts, named statements, bad UTF-8. */
function log(): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < 2000; i++) {
    const text = i % 3 === 0 ? MULTI_LINE : i % 10 === 1 ? inlined(i) : REPEATED[i % REPEATED.length]!;
    parts.push(Buffer.from(`${P(i)}LOG:  statement: ${text.replace(/\n/g, '\n\t')}\n`));
    if (i % 97 === 0) parts.push(Buffer.from(`${P(i)}LOG:  statement: SELEC ${i % 60}\n`));
    if (i % 89 === 0) parts.push(Buffer.from(`${P(i)}LOG:  execute S_${i % 5}: SELECT pg_advisory_lock($1)\n`));
    if (i % 83 === 0) parts.push(Buffer.from(`${P(i)}LOG:  statement: SET search_path = t${i}\n`));
    if (i === 1500)
      parts.push(
        Buffer.concat([Buffer.from(`${P(i)}LOG:  statement: SELECT '`), Buffer.from([0xff]), Buffer.from("'\n")]),
      );
  }
  return Buffer.concat(parts);
}

async function audited(file: string, jobs: number): Promise<{ code: number | null; report: AuditReport }> {
  const out = scratch.file(`jobs-${jobs}.json`);
  const run = await runCli(['audit', '--log', file, '--jobs', String(jobs), '--json', out]);
  expect(run.stderr).toBe('');
  return { code: run.code, report: JSON.parse(await readFile(out, 'utf8')) as AuditReport };
}

const comparable = (r: AuditReport): string =>
  JSON.stringify({ ...r, generatedAt: null, summary: { ...r.summary, durationMs: null, parsedTexts: null } }, null, 2);

describe('a log read by worker threads', () => {
  test('gives the report one thread gives', async () => {
    const file = scratch.file('postgresql.log');
    await writeFile(file, log());
    const one = { report: await audit({ logs: [file], jobs: 1 }) };
    const three = await audited(file, 3);
    // The report as --json writes it (dates and all), for the same comparison.
    one.report = JSON.parse(JSON.stringify(one.report)) as AuditReport;
    // Not vacuous: findings from the whole file, unparsed texts, a bad line, sources late in the file.
    expect(one.report.findings.length).toBeGreaterThanOrEqual(5);
    expect(one.report.unparsed.samples.length).toBeGreaterThan(10);
    expect(one.report.inputs[0]!.invalidUtf8Lines).toBe(1);
    expect(one.report.summary.statements).toBeGreaterThan(2000);
    expect(comparable(three.report)).toBe(comparable(one.report));
    // Findings that typically break, no pooler given: 3, as one thread would exit.
    expect(three.code).toBe(3);
  });
});
