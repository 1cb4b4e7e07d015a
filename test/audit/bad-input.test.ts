/**
 * Bad input ends in exit code 2 with a coded message naming the file and the problem, or, where
 * the rest of the input is still good (a 10 MB statement, a badly encoded log line), in a
 * reported entry while everything else is audited.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { isMainThread } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import type { AuditReport } from '../../audit/audit-types.js';
import { serverUser } from '../../fixtures/server-user.js';
import { runAudit, useScratchDir } from './audit-helpers.js';

const dir = useScratchDir('bad');

const TEN_MB = 10 * 1024 * 1024;
const LOG_PREFIX = '2026-01-01 10:00:00.000 UTC [4242] app@app LOG:  statement: ';

describe('files that are not text', () => {
  test('a binary file given to --sql', async () => {
    const file = dir.file('archive.sql.gz');
    await writeFile(file, gzipSync(Buffer.from('SET search_path = app;\n'.repeat(100))));
    const run = await runAudit(['--sql', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(`AUDIT_INPUT: --sql ${file}: looks binary \\(NUL byte at line \\d+, column \\d+\\)`),
    );
  });

  test('a binary file given to --log', async () => {
    const file = dir.file('postgresql.log.gz');
    await writeFile(file, gzipSync(Buffer.from(`${LOG_PREFIX}SET search_path = app\n`.repeat(100))));
    const run = await runAudit(['--log', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`AUDIT_INPUT: --log ${file}: looks binary`);
  });

  test('a text file that is no PostgreSQL log', async () => {
    const file = dir.file('notes.txt');
    await writeFile(file, 'shopping list\n- milk\n- SET search_path = app\n');
    const run = await runAudit(['--log', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no PostgreSQL log entries found (read as stderr)');
  });
});

describe('invalid UTF-8', () => {
  test('in an SQL file: refused with the line and column of the first bad byte', async () => {
    const file = dir.file('latin1.sql');
    await writeFile(
      file,
      Buffer.concat([Buffer.from("SELECT 1;\nSELECT 'caf"), Buffer.from([0xe9]), Buffer.from("';\n")]),
    );
    const run = await runAudit(['--sql', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`AUDIT_INPUT: --sql ${file}: not valid UTF-8 at line 2, column 12 (byte offset 21)`);
  });

  test('in a log line: the line is read with replacement characters, counted, and the log still audited', async () => {
    const file = dir.file('latin1.log');
    const json = dir.file('latin1.json');
    await writeFile(
      file,
      Buffer.concat([
        Buffer.from(`${LOG_PREFIX}SELECT 'caf`),
        Buffer.from([0xe9]),
        Buffer.from(`'\n${LOG_PREFIX}LISTEN jobs\n`),
      ]),
    );
    const run = await runAudit(['--log', file, '--json', json]);
    expect(run.code).toBe(3); // findings that typically break, no pooler given
    const report = JSON.parse(await readFile(json, 'utf8')) as AuditReport;
    expect(report.inputs[0]).toMatchObject({ kind: 'log', format: 'stderr', invalidUtf8Lines: 1, statements: 2 });
    expect(report.findings.map((f) => `${f.check} ${f.source}`)).toEqual([`notify/listen ${file}:2`]);
    expect(report.warnings.join('\n')).toContain('1 line(s) are not valid UTF-8 (first: line 1)');
  });
});

describe('a line of 10 MB', () => {
  test('in an SQL file: the statement is reported as too long, the rest is audited', async () => {
    const file = dir.file('bulk.sql');
    await writeFile(file, `INSERT INTO t VALUES ('${'x'.repeat(TEN_MB)}');\nSET search_path = app;\n`);
    const json = dir.file('bulk.json');
    const run = await runAudit(['--sql', file, '--json', json]);
    expect(run.code).toBe(3); // findings that typically break, no pooler given
    const report = JSON.parse(await readFile(json, 'utf8')) as AuditReport;
    expect(report.findings.map((f) => `${f.check} ${f.source}`)).toEqual([`session/search-path-leak ${file}:2`]);
    expect(report.unparsed.count).toBe(1);
    expect(report.unparsed.samples[0]!.source).toBe(`${file}:1`);
    expect(report.unparsed.samples[0]!.error).toMatch(/statement too long to parse: 10485785 bytes \(limit 1048576/);
    // The sample is cut for display; the report says how long the statement was.
    expect(report.unparsed.samples[0]!.statement.length).toBeLessThan(2_100);
  });

  test('in a log: the entry is reported with its line, the next entries are audited, and what is kept of it stays bounded', async () => {
    const file = dir.file('bulk.log');
    await writeFile(
      file,
      `${LOG_PREFIX}SELECT 1\n${LOG_PREFIX}INSERT INTO t VALUES ('${'y'.repeat(TEN_MB)}')\n${LOG_PREFIX}SELECT pg_advisory_lock(1)\n`,
    );
    const json = dir.file('bulk-log.json');
    const run = await runAudit(['--log', file, '--json', json]);
    expect(run.code).toBe(3); // findings that typically break, no pooler given
    const report = JSON.parse(await readFile(json, 'utf8')) as AuditReport;
    expect(report.findings.map((f) => `${f.check} ${f.source}`)).toEqual([`locks/advisory-session ${file}:3`]);
    expect(report.unparsed).toMatchObject({ count: 1 });
    expect(report.unparsed.samples[0]).toMatchObject({ source: `${file}:2` });
    expect(report.unparsed.samples[0]!.error).toMatch(/statement too long to parse/);
    // Only a cut beginning of the 10 MB entry is kept, so the report is small, not the entry's size.
    expect(report.unparsed.samples[0]!.statement.length).toBeLessThan(10_000);
    expect((await readFile(json, 'utf8')).length).toBeLessThan(100_000);
  });
});

describe('files that cannot be read', () => {
  test('a path that does not exist', async () => {
    const run = await runAudit(['--sql', dir.file('missing.sql')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('AUDIT_INPUT');
    expect(run.stderr).toContain('cannot read it (no such file)');
  });

  test('a directory given as a file, to --sql and to --log', async () => {
    for (const flag of ['--sql', '--log']) {
      const run = await runAudit([flag, dir.path]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`AUDIT_INPUT: ${flag} ${dir.path}: cannot read it (is a directory, not a file)`);
    }
  });

  /*
   * Root reads any file whatever its mode, so chmod 000 proves nothing when the tests run as
   * root. Instead the process drops its *effective* uid to the unprivileged `postgres` user for
   * the duration of the call (seteuid; the real uid stays 0, so it can switch back) and reads a
   * file inside a root-only 0700 folder: the kernel really refuses the open with EACCES. As a
   * non-root user the plain chmod 000 is enough and is used instead.
   */
  const unprivileged = serverUser();
  // seteuid works in a forked worker (Vitest's default pool), not in a worker thread.
  const canDrop = unprivileged === null || isMainThread;

  test.skipIf(!canDrop)('a file the user may not read (permission denied by the kernel)', async () => {
    const locked = dir.file('locked');
    await mkdir(locked, { mode: 0o700 });
    const file = `${locked}/secret.sql`;
    await writeFile(file, 'SET search_path = app;\n');
    let run: Awaited<ReturnType<typeof runAudit>>;
    if (unprivileged !== null) {
      process.seteuid!(unprivileged.uid);
      try {
        run = await runAudit(['--sql', file]);
      } finally {
        process.seteuid!(0);
      }
    } else {
      await chmod(file, 0o000);
      run = await runAudit(['--sql', file]);
    }
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`AUDIT_INPUT: --sql ${file}: cannot read it (permission denied)`);
  });
});

describe('bad arguments', () => {
  test('nothing to audit', async () => {
    const run = await runAudit([]);
    expect(run).toMatchObject({ code: 2 });
    expect(run.stderr).toContain('BAD_ARGUMENTS: nothing to audit');
  });

  test('an unknown option and a stray argument', async () => {
    expect((await runAudit(['--sqll', 'x.sql'])).stderr).toContain('unknown option --sqll');
    expect((await runAudit(['x.sql'])).stderr).toContain('unexpected argument "x.sql"');
  });

  test('--report and --target together', async () => {
    const file = dir.file('ok.sql');
    await writeFile(file, 'SELECT 1;');
    const run = await runAudit(['--sql', file, '--report', 'r.json', '--target', 'postgres://u:pw@127.0.0.1:1/db']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('BAD_ARGUMENTS');
  });
});
