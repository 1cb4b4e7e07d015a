/**
 * What an output path names survives the write: `--markdown /dev/full` exited 0 and turned the
 * device into a regular file (the temp file was renamed over it), a symlink was replaced
 * instead of written through, a FIFO was replaced, `--json /proc/self/fd/1` failed on
 * `/proc/self/fd/1.PID.tmp`, and `--html somedir` left `somedir.PID.tmp` behind. Every special
 * file here is made in a temp folder (never /dev/full or /dev/stdout themselves).
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { PooltestError } from '../../engine/record/errors.js';
import { checkOutputs, writeOutput } from '../../cli/outputs.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { REPO, runCli } from '../support/cli.js';

const isRoot = process.getuid?.() === 0;

function codeOf(f: () => unknown): string | null {
  try {
    f();
    return null;
  } catch (e) {
    return e instanceof PooltestError ? `${e.code}: ${e.message}` : `not a PooltestError: ${String(e)}`;
  }
}

describe('output files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-output-files-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('a FIFO no process reads is refused at the write after a bounded wait, never waited on for good', () => {
    const fifo = path.join(dir, 'nobody-reads');
    execFileSync('mkfifo', [fifo]);
    // The check before a run does not open it (that would end a reader waiting on it).
    expect(codeOf(() => checkOutputs({ json: fifo }))).toBeNull();
    expect(codeOf(() => writeOutput(fifo, 'x\n'))).toMatch(
      /^OUTPUT_FAILED: .*a FIFO that no process opened for reading/,
    );
  });

  test('a long file name that is valid is written (the temp file beside it is short)', () => {
    const long = path.join(dir, `${'c'.repeat(245)}.json`);
    writeOutput(long, 'long\n');
    expect(readFileSync(long, 'utf8')).toBe('long\n');
    expect(readdirSync(dir)).toEqual([path.basename(long)]);
  });

  test('two reports asked into one file are refused before the run; a device may take both', () => {
    const same = path.join(dir, 'same.json');
    expect(codeOf(() => checkOutputs({ json: same, markdown: same }))).toMatch(
      /^BAD_ARGUMENTS: --json and --markdown both write/,
    );
    expect(codeOf(() => checkOutputs({ json: '/dev/null', markdown: '/dev/null' }))).toBeNull();
  });

  test('a symlink is written through: the link stays a link and its target gets the text', () => {
    const real = path.join(dir, 'real.json');
    writeFileSync(real, 'old\n');
    const link = path.join(dir, 'link.json');
    symlinkSync('real.json', link);
    writeOutput(link, 'new\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('real.json');
    expect(readFileSync(real, 'utf8')).toBe('new\n');
    // A dangling link is written through too: the file appears where it points.
    const dangling = path.join(dir, 'dangling.md');
    symlinkSync('sub/later.md', dangling);
    writeOutput(dangling, 'later\n');
    expect(lstatSync(dangling).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(dir, 'sub/later.md'), 'utf8')).toBe('later\n');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  test('a FIFO is written into, never replaced by a regular file', async () => {
    const fifo = path.join(dir, 'report.fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
    let got = '';
    reader.stdout.on('data', (d: Buffer) => (got += d.toString()));
    const closed = new Promise((resolve) => reader.on('close', resolve));
    writeOutput(fifo, 'through the pipe\n');
    // A replaced FIFO leaves the reader waiting for a writer forever: bound it.
    const bound = setTimeout(() => reader.kill(), 5_000);
    await closed;
    clearTimeout(bound);
    expect(got).toBe('through the pipe\n');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(dir)).toEqual(['report.fifo']);
  });

  test('/proc/self/fd/N of a pipe is written directly (it used to fail on /proc/self/fd/1.PID.tmp)', async () => {
    // In a child, whose stdout is a pipe to us: the path is its descriptor 1.
    const outputs = path.join(REPO, 'dist/cli/outputs.js');
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { writeOutput } = await import(${JSON.stringify(outputs)}); writeOutput('/proc/self/fd/1', 'via fd 1\\n');`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toBe('via fd 1\n');
  });

  test('a directory is refused with OUTPUT_FAILED and leaves no temp file beside it', () => {
    const sub = path.join(dir, 'somedir');
    mkdirSync(sub);
    expect(codeOf(() => writeOutput(sub, 'x'))).toMatch(/^OUTPUT_FAILED: cannot write .*somedir: .*is a directory/);
    expect(readdirSync(dir)).toEqual(['somedir']);
    expect(readdirSync(sub)).toEqual([]);
  });

  // A character device like /dev/full, made in the temp folder (mknod needs root): writing to
  // it fails with ENOSPC, which must be OUTPUT_FAILED, and the node must still be a device.
  test.skipIf(!isRoot)('a full character device is OUTPUT_FAILED (ENOSPC) and stays a device', () => {
    const full = path.join(dir, 'full');
    execFileSync('mknod', [full, 'c', '1', '7']);
    expect(codeOf(() => writeOutput(full, 'x'.repeat(100)))).toMatch(/^OUTPUT_FAILED: cannot write .*full: .*ENOSPC/);
    expect(lstatSync(full).isCharacterDevice()).toBe(true);
    expect(readdirSync(dir)).toEqual(['full']);
  });
});

describe('output paths are checked before the run, and a late failure keeps the results', () => {
  let dir: string;
  let stack: Stack | undefined;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-output-paths-'));
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('--html <a directory> or a file under a regular file is OUTPUT_FAILED before connecting (it ran every check first)', async () => {
    const sub = path.join(dir, 'somedir');
    mkdirSync(sub, { recursive: true });
    const plain = path.join(dir, 'plain');
    writeFileSync(plain, '');
    // Port 1 refuses: had the target been tried first, this would say TARGET_REFUSED.
    for (const args of [
      ['--html', sub],
      ['--json', path.join(plain, 'report.json')],
    ]) {
      const r = await runCli(['--target', 'postgres://u@127.0.0.1:1/db', '--no-store', ...args], { timeoutMs: 20_000 });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/OUTPUT_FAILED: cannot write .*(is a directory|is not a directory|ENOTDIR)/);
      expect(r.stderr).not.toMatch(/TARGET_REFUSED/);
      // Stopped at that check and said nothing else: no discovery, no check, no report. (An
      // elapsed time under 10 s said the same on a quiet machine; a CLI start alone took 5 to
      // 10 s at load 18, issue 21.)
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^pooltest: OUTPUT_FAILED: /)]);
    }
    expect(readdirSync(sub)).toEqual([]);
  });

  // A full device is now refused before the run (its probe write of zero bytes fails); a FIFO
  // that no process reads passes that check (it is never opened early) and fails at the end.
  test('a write that fails after the run is OUTPUT_FAILED, exit 2, after the report was printed, whose Summary says exit 2', async () => {
    stack = await startStack('pgbouncer-transaction');
    const fifo = path.join(dir, 'nobody-reads');
    execFileSync('mkfifo', [fifo]);
    const r = await runCli([
      '--target',
      stack.target.url(),
      '--only',
      'session/set-local',
      '--no-store',
      '--markdown',
      fifo,
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/OUTPUT_FAILED: cannot write .*nobody-reads: .*no process opened for reading/);
    expect(r.stdout).toMatch(/session\/set-local\s+scoped/);
    // The printed exit code is the process's: not "exit 0" above an error that exits 2.
    expect(r.stdout).toMatch(/Summary\s+1 check.*exit 2/);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });
});
