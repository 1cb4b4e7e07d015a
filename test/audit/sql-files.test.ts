/**
 * `--sql FILE...`: findings point at the right file and line, a broken statement costs only
 * itself, psql meta-commands and BEGIN ATOMIC bodies are handled, and the JSON carries what the
 * issue promises.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import type { AuditReport } from '../../audit/audit-types.js';
import { runAudit, useScratchDir } from './audit-helpers.js';

const dir = useScratchDir('sql');

const MIGRATION = `-- 001_setup.sql: a migration with a bit of everything
SET statement_timeout = '5min';
SELECT 'SET search_path = nowhere' AS not_a_set;   -- a string, not a SET
CREATE TABLE café (id serial PRIMARY KEY, name text DEFAULT 'ünïcode');
/* a block comment with LISTEN inside */
SELECT pg_advisory_lock(4242);
CREATE FUNCTION touch() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  SET search_path = app;   -- inside a function body: not run by the migration
END $$;
INSERT INTO café (name)
  VALUES ('x')
  RETURNING currval('café_id_seq');
SET LOCAL lock_timeout = '1s';
SELECT pg_advisory_unlock(4242);
`;

async function auditJson(
  files: string[],
  extra: string[] = [],
): Promise<{ report: AuditReport; code: number; stdout: string; stderr: string }> {
  const json = dir.file(`out-${Math.random().toString(36).slice(2)}.json`);
  const run = await runAudit(['--sql', ...files, '--json', json, ...extra]);
  const report =
    run.code === 2 ? (null as unknown as AuditReport) : (JSON.parse(await readFile(json, 'utf8')) as AuditReport);
  return { report, ...run };
}

describe('SQL files', () => {
  test('findings name the check, the statement, file:line and the count', async () => {
    const file = dir.file('001_setup.sql');
    await writeFile(file, MIGRATION);
    const { report, code } = await auditJson([file]);
    expect(code).toBe(3); // findings that typically break, no pooler given and no --fail-on-findings
    const found = report.findings.map((f) => [f.check, f.source, f.count]);
    expect(found).toEqual([
      ['locks/advisory-session', `${file}:6`, 1],
      ['sequences/lastval', `${file}:11`, 1],
      ['session/set-leak', `${file}:2`, 1],
    ]);
    // The unlock at line 15 is the lock's cleanup half: beside it, not a break of its own.
    expect(report.cleanups.map((c) => [c.undoes, c.source, c.paired])).toEqual([
      [['locks/advisory-session'], `${file}:15`, true],
    ]);
    expect(report.summary.statements).toBe(8);
    expect(report.unparsed.count).toBe(0);
    const lastval = report.findings.find((f) => f.check === 'sequences/lastval')!;
    expect(lastval.statement).toContain("RETURNING currval('café_id_seq')");
    expect(lastval).toMatchObject({ basis: 'typical', outcome: 'leaked', breaks: true });
    expect(lastval.advice).toMatch(/RETURNING/);
  });

  test('the same statement in two files is one finding counted twice, with both sources', async () => {
    const a = dir.file('a.sql');
    const b = dir.file('b.sql');
    await writeFile(a, 'LISTEN jobs;\n');
    await writeFile(b, 'SELECT 1;\n\nLISTEN jobs;\n');
    const { report } = await auditJson([a, b]);
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({ check: 'notify/listen', count: 2, sources: [`${a}:1`, `${b}:3`] });
  });

  test('set_config of two different settings stays two findings although both normalize alike', async () => {
    const file = dir.file('two-settings.sql');
    await writeFile(
      file,
      "SELECT set_config('app.user', 'a', false);\nSELECT set_config('app.tenant', 'b', false);\nSELECT set_config('app.user', 'c', false);\n",
    );
    const { report } = await auditJson([file]);
    expect(report.findings.map((f) => `${f.what} x${f.count}`)).toEqual([
      "set_config('app.user', ..., false) x2",
      "set_config('app.tenant', ..., false) x1",
    ]);
  });

  test('a statement that does not parse is reported with its line; the others are still classified', async () => {
    const file = dir.file('broken.sql');
    await writeFile(file, "SET app.tenant = '1';\nSELEC oops FROM t;\nLISTEN later;\n");
    const { report, stdout } = await auditJson([file]);
    expect(report.findings.map((f) => `${f.check} ${f.source}`)).toEqual([
      `session/custom-guc-leak ${file}:1`,
      `notify/listen ${file}:3`,
    ]);
    expect(report.unparsed).toMatchObject({ count: 1, distinct: 1 });
    expect(report.unparsed.samples[0]).toMatchObject({ statement: 'SELEC oops FROM t', source: `${file}:2` });
    expect(report.unparsed.samples[0]!.error).toMatch(/syntax error at or near "SELEC"/);
    expect(stdout).toContain('Not classified: 1 statement(s)');
  });

  test('an empty SQL file (or one of only comments) is audited with a warning, not passed silently; a file with statements gets none', async () => {
    const empty = dir.file('empty.sql');
    const comments = dir.file('comments.sql');
    const one = dir.file('one.sql');
    await writeFile(empty, '');
    await writeFile(comments, '-- nothing here yet\n/* still nothing */\n');
    await writeFile(one, 'SELECT 1;\n');
    const { report, code } = await auditJson([empty, comments, one]);
    expect(code).toBe(0);
    expect(report.warnings).toEqual(
      expect.arrayContaining([`--sql ${empty}: no statements in it`, `--sql ${comments}: no statements in it`]),
    );
    // The control: the file with a statement is not warned about.
    expect(report.warnings.join('\n')).not.toContain(one);
  });
  test('a file the lexer cannot split (unterminated quote) is one unparsed entry at the error, not an empty audit', async () => {
    const file = dir.file('unterminated.sql');
    await writeFile(file, "SET a.b = 1;\nSELECT 'never closed;\nLISTEN x;\n");
    const { report } = await auditJson([file]);
    expect(report.findings).toEqual([]);
    expect(report.unparsed.count).toBe(1);
    expect(report.unparsed.samples[0]!.source).toBe(`${file}:2`);
    expect(report.unparsed.samples[0]!.error).toMatch(/the lexer cannot split this file.*unterminated quoted string/);
  });

  test('psql meta-commands are skipped and counted; BEGIN ATOMIC bodies are not split at their semicolons', async () => {
    const file = dir.file('dump.sql');
    await writeFile(
      file,
      [
        '\\connect app',
        'SET search_path = app;',
        'CREATE FUNCTION add(a int, b int) RETURNS int LANGUAGE sql',
        'BEGIN ATOMIC',
        '  SELECT CASE WHEN a > 0 THEN a ELSE 0 END;',
        '  SELECT a + b;',
        'END;',
        'SELECT lastval();',
      ].join('\n'),
    );
    const { report } = await auditJson([file]);
    expect(report.inputs[0]).toMatchObject({ kind: 'sql', metaCommands: 1, statements: 3 });
    expect(report.unparsed.count).toBe(0);
    expect(report.findings.map((f) => `${f.check} ${f.source}`)).toEqual([
      `session/search-path-leak ${file}:2`,
      `sequences/lastval ${file}:8`,
    ]);
  });

  test('--markdown writes a section per check with the statement and its source', async () => {
    const file = dir.file('md.sql');
    const md = dir.file('out.md');
    await writeFile(file, "SELECT set_config('app.user', 'a|b', false);\n");
    const run = await runAudit(['--sql', file, '--markdown', md]);
    expect(run.code).toBe(3); // findings that typically break, no pooler given
    const text = await readFile(md, 'utf8');
    expect(text).toContain('## `session/custom-guc-leak`');
    expect(text).toContain("<code>SELECT set_config('app.user', 'a&#124;b', false)</code>");
    expect(text).toContain(`${file}:1`);
  });
});
