/**
 * Log message shapes the real-server test does not produce on its own: duration lines from
 * log_min_duration_statement, `execute fetch from` continuations, an ERROR's STATEMENT line,
 * CRLF line ends, a log on standard input. Line texts follow postgres.c's message formats.
 */
import { Readable } from 'node:stream';
import { readFile, writeFile } from 'node:fs/promises';
import { expect, test } from 'vitest';
import type { AuditReport } from '../../audit/audit-types.js';
import { runAudit, useScratchDir } from './audit-helpers.js';

const dir = useScratchDir('messages');

const P = '2026-01-01 10:00:00.000 UTC [77] app@app ';

/** Audits `log`; `code` is the exit code expected (3: findings that typically break, no pooler given). */
async function audited(log: string, extra: string[] = [], code = 3): Promise<AuditReport> {
  const file = dir.file(`${Math.random().toString(36).slice(2)}.log`);
  const json = `${file}.json`;
  await writeFile(file, log);
  const run = await runAudit(['--log', file, '--json', json, ...extra]);
  expect(run.code, run.stderr).toBe(code);
  return JSON.parse(await readFile(json, 'utf8')) as AuditReport;
}

test('each statement is counted once: STATEMENT lines of errors, fetch continuations, parse/bind durations are not statements', async () => {
  const report = await audited(
    [
      `${P}LOG:  statement: LISTEN a`,
      `${P}ERROR:  relation "nope" does not exist at character 15`,
      `${P}STATEMENT:  LISTEN a`,
      `${P}LOG:  execute C_1: SELECT pg_advisory_lock(1)`,
      `${P}LOG:  execute fetch from C_1/P_1: SELECT pg_advisory_lock(1)`,
      `${P}LOG:  duration: 0.051 ms  parse S_2: SELECT lastval()`,
      `${P}LOG:  duration: 0.020 ms  bind S_2: SELECT lastval()`,
      `${P}LOG:  duration: 0.113 ms  execute S_2: SELECT lastval()`,
      `${P}LOG:  duration: 1.500 ms  statement: SET search_path = app`,
      `${P}LOG:  duration: 0.900 ms`,
      '',
    ].join('\n'),
  );
  expect(report.findings.map((f) => `${f.check} x${f.count}`).sort()).toEqual([
    'locks/advisory-session x1',
    'notify/listen x1',
    // C_1 and S_2 are named statements; S_2's parse and bind lines add no execution.
    'prepared/protocol-named x1',
    'prepared/protocol-named x1',
    'sequences/lastval x1',
    'session/search-path-leak x1',
  ]);
  expect(
    report.findings.filter((f) => f.check === 'prepared/protocol-named').map((f) => [f.what, f.sources.length]),
  ).toEqual([
    ['named protocol statement "C_1"', 1],
    ['named protocol statement "S_2"', 3],
  ]);
  expect(report.inputs[0]).toMatchObject({ statements: 4, namedProtocolExecutions: 2 });
});

test('CRLF line ends and a multi-line statement whose own lines start with tabs', async () => {
  const report = await audited(
    `${P}LOG:  statement: SELECT 1,\r\n\t\tpg_advisory_lock(2)\r\n${P}LOG:  statement: SELECT 2\r\n`,
  );
  expect(report.findings).toHaveLength(1);
  expect(report.findings[0]!.statement).toBe('SELECT 1,\n\tpg_advisory_lock(2)');
  expect(report.findings[0]!.source.endsWith(':1')).toBe(true);
});

test('a csvlog message with newlines and doubled quotes inside its quoted field', async () => {
  const record = `2026-01-01 10:00:00.000 UTC,"app","app",77,"127.0.0.1:5000",abc.1,1,"SELECT",2026-01-01 10:00:00 UTC,3/1,0,LOG,00000,"statement: SELECT 'a""b',\npg_advisory_lock(3)",,,,,,,,,"psql","client backend",,0`;
  const report = await audited(`${record}\n${record.replace('pg_advisory_lock(3)', 'now()')}\n`);
  expect(report.inputs[0]).toMatchObject({ format: 'csvlog', statements: 2 });
  expect(report.findings.map((f) => [f.statement, f.source.slice(-2)])).toEqual([
    ["SELECT 'a\"b',\npg_advisory_lock(3)", ':1'],
  ]);
});

test('--log - reads standard input', async () => {
  const stdin = Readable.from([Buffer.from(`${P}LOG:  statement: LISTEN from_stdin\n`)]);
  const json = dir.file('stdin.json');
  const run = await runAudit(['--log', '-', '--json', json], { NO_COLOR: '1' }, stdin);
  expect(run.code).toBe(3); // findings that typically break, no pooler given
  const report = JSON.parse(await readFile(json, 'utf8')) as AuditReport;
  expect(report.findings[0]).toMatchObject({ check: 'notify/listen', source: 'stdin:1' });
});

test('a log where nothing was logged as a statement says how to turn log_statement on', async () => {
  const report = await audited(`${P}LOG:  database system is ready to accept connections\n`, [], 0);
  expect(report.warnings.join('\n')).toContain("set log_statement = 'all'");
});
