/**
 * What a fresh-eyes trial of the CLI found, each test named after what the user saw. None
 * needs a pooler: each refusal must come before anything connects, so the target is port 1,
 * where nothing listens (had pooltest tried it, the error would be TARGET_REFUSED instead).
 * One exception: a Ctrl-C while the embedded default starts needs that start under way.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseCli } from '../../cli/args.js';
import { checkOutputs } from '../../cli/outputs.js';
import { PooltestError } from '../../engine/record/errors.js';
import { processFamily } from '../../fixtures/proc-table.js';
import { CATALOGUE } from '../../suites/catalogue.js';
import { selectChecks } from '../../runner/run.js';
import { runCli } from '../support/cli.js';

function codeOf(f: () => unknown): string | null {
  try {
    f();
    return null;
  } catch (e) {
    return e instanceof PooltestError ? e.code : `not a PooltestError: ${String(e)}`;
  }
}

const NOWHERE = 'postgres://u@127.0.0.1:1/db';
const isRoot = process.getuid?.() === 0;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-fresh-eyes-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a selection that leaves nothing', () => {
  test('--only X --skip <its area> printed "Summary 0 checks ... exit 0" and exited 0: now NO_CHECKS_SELECTED, exit 2, before connecting', async () => {
    const r = await runCli(
      ['--target', NOWHERE, '--no-store', '--only', 'session/set-leak', '--skip', 'session', '--strict'],
      { timeoutMs: 30_000 },
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /NO_CHECKS_SELECTED: no check left to run: --only session\/set-leak selects 1 and --skip session/,
    );
    expect(r.stderr).not.toMatch(/TARGET_REFUSED/);
    expect(r.stdout).not.toMatch(/Summary/);
    // Without --strict, and with --profile: the same refusal (the profile never narrows it).
    expect(codeOf(() => selectChecks(['session/set-leak'], ['session/set-leak']))).toBe('NO_CHECKS_SELECTED');
    expect(codeOf(() => selectChecks(['session/set-leak'], []))).toBeNull();
  });

  test('--skip of every area, with --expect, is refused the same way', async () => {
    const expectFile = path.join(dir, 'expect.json');
    writeFileSync(expectFile, JSON.stringify({ extends: 'pgbouncer-transaction', name: 'mine', expect: {} }));
    const areas = [...new Set(CATALOGUE.map((c) => c.id.split('/')[0]))].join(',');
    const r = await runCli(['--target', NOWHERE, '--no-store', '--skip', areas, '--expect', expectFile], {
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/NO_CHECKS_SELECTED: no check left to run: the catalogue holds \d+ and --skip /);
  });
});

describe('an output path no write reaches', () => {
  test('--json /proc/version ran every check, printed "exit 0", then failed with EIO: now OUTPUT_FAILED before connecting', async () => {
    const r = await runCli(['--target', NOWHERE, '--no-store', '--json', '/proc/version'], { timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/OUTPUT_FAILED: cannot write \/proc\/version/);
    expect(r.stderr).not.toMatch(/TARGET_REFUSED/);
    // Every kind of output goes through the same check.
    for (const kind of ['junit', 'markdown', 'html'] as const)
      expect(
        codeOf(() => checkOutputs({ [kind]: '/proc/version' })),
        kind,
      ).toBe('OUTPUT_FAILED');
  });

  // mknod needs root; the device is made in the temp folder, never /dev/full itself.
  test.skipIf(!isRoot)('a full device is refused before the run; the probe leaves no file that was not there', () => {
    const sub = mkdtempSync(path.join(dir, 'probe-'));
    const full = path.join(sub, 'full');
    execFileSync('mknod', [full, 'c', '1', '7']);
    const fresh = path.join(sub, 'fresh.json');
    expect(codeOf(() => checkOutputs({ json: fresh }))).toBeNull();
    expect(existsSync(fresh)).toBe(false);
    const kept = path.join(sub, 'kept.json');
    writeFileSync(kept, 'old report\n');
    expect(codeOf(() => checkOutputs({ json: kept, markdown: full }))).toBe('OUTPUT_FAILED');
    // Probed for appending: an existing file is never truncated by the check.
    expect(readFileSync(kept, 'utf8')).toBe('old report\n');
    expect(readdirSync(sub).sort()).toEqual(['full', 'kept.json']);
  });
});

/**
 * A preload for the child (NODE_OPTIONS=--require) that sends the process SIGINT as soon as the
 * first SIGINT listener is added: early-signals.ts's, long before the command's modules have
 * loaded. From inside the process, not timed from outside, so a busy machine changes nothing.
 * (The kernel's SigCgt mask cannot tell the moment: Node catches SIGINT itself from its start,
 * to reset the terminal before dying of it.)
 */
const PRELOAD = `
const on = process.on;
let sent = false;
process.on = function (event, listener) {
  const result = on.call(this, event, listener);
  if (event === 'SIGINT' && !sent) { sent = true; process.on = on; process.kill(process.pid, 'SIGINT'); }
  return result;
};
`;

describe('a Ctrl-C while pooltest starts', () => {
  test('the run command and a subcommand said nothing (a bare exit 130): now the INTERRUPTED line, exit 130', async () => {
    for (const args of [
      ['--target', NOWHERE, '--no-store'],
      ['diff', 'old.json', 'new.json'],
    ]) {
      const preload = path.join(dir, 'interrupt-at-once.cjs');
      writeFileSync(preload, PRELOAD);
      const r = await runCli(args, { env: { NODE_OPTIONS: `--require ${preload}` }, timeoutMs: 30_000 });
      expect(r.signal, args[0]).toBeNull();
      expect(r.code, r.stderr).toBe(130);
      expect(r.stderr).toMatch(/pooltest: SIGINT while starting: ending before anything starts/);
      expect(r.stderr).toMatch(/pooltest: INTERRUPTED: interrupted before anything started/);
      // Nothing was in flight: the line about stopping a check would mislead.
      expect(r.stderr).not.toMatch(/stopping the check in flight|TARGET_REFUSED|REPORT_INVALID/);
    }
  });
});

describe('a Ctrl-C while the embedded default starts its PostgreSQL', () => {
  // A cold temp folder makes the fixture run initdb (about a second), a window a user's Ctrl-C
  // falls into on a first run. The Ctrl-C killed initdb too, and the run then reported that as
  // its failure: "FIXTURE_FAILED: .../initdb -D ... exited with null:", exit 130.
  test('Ctrl-C during initdb said "FIXTURE_FAILED: initdb ... exited with null": now INTERRUPTED, exit 130, nothing left', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'pooltest-fresh-eyes-tmp-'));
    // The fixture's servers run as the unprivileged `postgres` user, who must reach the folder.
    chmodSync(tmp, 0o755);
    try {
      let sent = false;
      const r = await runCli(['--only', 'session/set-leak', '--no-store'], {
        env: { TMPDIR: tmp },
        timeoutMs: 60_000,
        onSpawn(child) {
          const poll = setInterval(() => {
            if (child.exitCode !== null || child.signalCode !== null) return clearInterval(poll);
            const initdb = processFamily(child.pid!).find((p) => {
              try {
                return /initdb/.test(readFileSync(`/proc/${p.pid}/cmdline`, 'utf8'));
              } catch {
                return false;
              }
            });
            if (initdb) {
              clearInterval(poll);
              // A terminal's Ctrl-C goes to the whole foreground process group, and pooltest's
              // helper commands (initdb, cp, postgres --single) are in its group: both get it.
              sent = child.kill('SIGINT');
              try {
                process.kill(initdb.pid, 'SIGINT');
              } catch {
                // initdb had just ended: the CLI's signal alone is the same moment.
              }
            }
          }, 5);
        },
      });
      expect(sent, `initdb never showed: ${r.stderr}`).toBe(true);
      expect(r.code, r.stderr).toBe(130);
      // On a loaded machine the start can get past initdb before the signal is handled: the
      // interruption is then said at the next stage, and is still an interruption, exit 130.
      expect(r.stderr).toMatch(
        /pooltest: INTERRUPTED: interrupted (while starting the throwaway PostgreSQL|before discovery)/,
      );
      expect(r.stderr).not.toMatch(/FIXTURE_FAILED|exited with null/);
      // The half-made template and the servers' folders are gone.
      expect(readdirSync(tmp).filter((f) => f !== 'pooltest-vite-cache')).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('a negative number', () => {
  test('--timeout -5 and --max-pool -1 got "argument is ambiguous" and the whole help: now the one-line range error', () => {
    for (const [args, message] of [
      [['--timeout', '-5'], /^--timeout "-5" is not a duration/],
      [['--max-pool', '-1'], /^--max-pool "-1" is not a whole number from 1 to 1000$/],
      [['-p', '-5'], /^-p\/--port "-5" is not a TCP port/],
    ] as const) {
      let error: unknown = null;
      try {
        parseCli([...args]);
      } catch (e) {
        error = e;
      }
      expect(error instanceof PooltestError && error.code, args.join(' ')).toBe('BAD_ARGUMENTS');
      expect((error as Error).message).toMatch(message);
    }
    expect(parseCli(['--timeout', '5']).timeoutMs).toBe(5_000);
  });
});
