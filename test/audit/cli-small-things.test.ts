/**
 * Small things the audit's command line got wrong: a negative limit read as a missing value,
 * a header that named pg_stat_statements' calls whatever the inputs were, `--sql -` looking
 * for a file called "-", and (reported, not reproduced) an empty stdin for `--log -` passing
 * without the warning an empty file gets.
 */
import { writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import type { AuditReport } from '../../audit/audit-types.js';
import { pgbouncerReport } from '../reporters/samples.js';
import { runAudit, useScratchDir } from './audit-helpers.js';

const dir = useScratchDir('small');
const LOG_LINE = '2026-01-01 10:00:00.000 UTC [4242] app@app LOG:  statement: LISTEN from_log\n';

describe('limits', () => {
  test.each(['-1', '0', '1.5', 'ten'])('--max-statement-bytes %s must be a positive whole number', async (value) => {
    const run = await runAudit(['--sql', 'x.sql', '--max-statement-bytes', value]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `BAD_ARGUMENTS: --max-statement-bytes must be a positive whole number, not "${value}"`,
    );
  });
});

describe('the header says what its counts count', () => {
  test('SQL files only: statements in the files, no pg_stat_statements', async () => {
    const file = dir.file('one.sql');
    await writeFile(file, 'LISTEN a;\nSELECT 1;\n');
    const header = (await runAudit(['--sql', file])).stdout.split('\n')[0]!;
    expect(header).toContain('2 statement occurrence(s) from 1 input(s) (SQL files: each statement as written)');
    expect(header).not.toContain('pg_stat_statements');
  });

  test('logs only: logged executions', async () => {
    const file = dir.file('one.log');
    await writeFile(file, LOG_LINE);
    const header = (await runAudit(['--log', file])).stdout.split('\n')[0]!;
    expect(header).toContain('(logs: each logged execution)');
    expect(header).not.toContain('pg_stat_statements');
  });

  test('both: each kind named once, in a stable order', async () => {
    const sql = dir.file('two.sql');
    const log = dir.file('two.log');
    await writeFile(sql, 'LISTEN a;\n');
    await writeFile(log, LOG_LINE);
    const header = (await runAudit(['--log', log, '--sql', sql])).stdout.split('\n')[0]!;
    expect(header).toContain('(SQL files: each statement as written; logs: each logged execution)');
  });
});

describe('stdin', () => {
  test('--sql - reads one SQL file from stdin, named stdin', async () => {
    const json = dir.file('sql-stdin.json');
    const stdin = Readable.from([Buffer.from('LISTEN from_stdin;\n')]);
    const run = await runAudit(['--sql', '-', '--json', json], { NO_COLOR: '1' }, stdin);
    expect(run.stderr).toBe('');
    const report = JSON.parse(await import('node:fs/promises').then((fs) => fs.readFile(json, 'utf8'))) as AuditReport;
    expect(report.inputs).toMatchObject([{ kind: 'sql', name: 'stdin' }]);
    expect(report.findings[0]).toMatchObject({ check: 'notify/listen', source: 'stdin:1' });
  });

  test('stdin given twice (--sql - --log -) is refused: it can be read once', async () => {
    const run = await runAudit(['--sql', '-', '--log', '-'], { NO_COLOR: '1' }, Readable.from([]));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('BAD_ARGUMENTS: stdin (-) can be read only once');
  });

  test.each([
    ['no chunk at all', []],
    ['an empty chunk', [Buffer.alloc(0)]],
  ])('an empty stdin for --log - is warned about as an empty file is (%s)', async (_what, chunks) => {
    const run = await runAudit(['--log', '-'], { NO_COLOR: '1' }, Readable.from(chunks));
    expect(run.stdout).toContain('warning: --log stdin is empty');
  });
});

describe('targets', () => {
  test("an IPv6 pooler is shown as [host]:port in the audit's pooler line", async () => {
    const report = pgbouncerReport();
    report.target.host = '::1';
    report.target.port = 1;
    const file = dir.file('ipv6.report.json');
    const sql = dir.file('ipv6.sql');
    await writeFile(file, JSON.stringify(report));
    await writeFile(sql, 'SELECT 1;\n');
    const run = await runAudit(['--sql', sql, '--report', file]);
    expect(run.stdout).toContain(`(${report.target.user}@[::1]:1/${report.target.database})`);
  });
});
