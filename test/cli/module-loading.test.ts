/**
 * What the CLI loads: a command or a run that ends early must not pay for modules it never
 * uses. Vitest (the check runner, with Vite and rolldown about 70 modules and most of a second
 * of CPU on the busy machine) is loaded once the target accepts a TCP connection, alongside the
 * first login (on a thread of its own, runner/vitest-host.ts); a target that cannot be reached is said without it, and the process is not kept
 * alive by a module still loading. --help and --version load neither the engine nor the
 * catalogue nor Vitest; the subcommands (diff, audit, watch, matrix, drivers) load neither the
 * run nor Vitest.
 *
 * Each run goes through a module hook (node --import) that writes every module URL Node loads to
 * a file. The control runs prove the hook sees what the others must not load.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../../fixtures/free-port.js';
import { CLI } from '../support/cli.js';

let dir: string;
let register: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-modules-'));
  // The hook runs on Node's loader thread; it appends each URL as its module is loaded.
  writeFileSync(
    path.join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.POOLTEST_MODULE_LOG, url + '\\n');
  return next(url, context);
}
`,
  );
  register = path.join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n`);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let runs = 0;

/** Runs the CLI with the hook; returns its exit code, stderr and the modules it loaded. */
async function loaded(args: string[]): Promise<{ code: number | null; stderr: string; modules: string[] }> {
  const log = path.join(dir, `modules-${++runs}.txt`);
  writeFileSync(log, '');
  const child = spawn(process.execPath, ['--import', register, CLI, ...args], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1', POOLTEST_MODULE_LOG: log },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // A hang guard, not a speed requirement.
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stderr, modules: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

/**
 * Vitest, or the thread a compiled run starts it on (runner/vitest-host.js): a run that fails
 * its login ends that thread at once, perhaps before Vitest's own modules were read.
 */
const VITEST = /\/node_modules\/(vitest|vite|rolldown)\/|\/dist\/runner\/vitest-host\.js$/;
/** The engine's steering and judging, and the check definitions that use them. */
const ENGINE_RUN = /\/dist\/(engine\/(steering|judging)|suites)\//;
/** The run itself: only the run command loads it. */
const RUNNER = /\/dist\/runner\/(run|vitest-runner)\.js$/;

describe('commands that run no check', () => {
  // --help returns from the same place, before anything of the run is loaded.
  test.each([['--version']])('%s loads neither the engine nor the catalogue nor Vitest', async (flag) => {
    const run = await loaded([flag]);
    expect(run.code, run.stderr).toBe(0);
    // The hook saw the command itself.
    expect(run.modules.some((m) => m.endsWith('/dist/cli/command.js'))).toBe(true);
    expect(run.modules.filter((m) => ENGINE_RUN.test(m) || VITEST.test(m) || RUNNER.test(m))).toEqual([]);
  });

  // One of the five subcommands, which all return before the run's imports: each CLI run
  // costs seconds on the busy machine.
  test.each([['diff']])('%s --help loads neither the run nor Vitest', async (sub) => {
    const run = await loaded([sub, '--help']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.modules.some((m) => m.endsWith('/dist/cli/command.js'))).toBe(true);
    expect(run.modules.filter((m) => VITEST.test(m) || RUNNER.test(m))).toEqual([]);
  });
});

describe('a run that cannot reach its target', () => {
  test('is refused without loading Vitest', async () => {
    const port = await freePort();
    const run = await loaded(['--target', `127.0.0.1:${port}`, '--no-store']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/TARGET_REFUSED/);
    // The run itself was loaded (the hook saw the engine), Vitest was not.
    // Control for the commands above: the run command loads the engine, the catalogue and the runner.
    expect(run.modules.some((m) => m.includes('/dist/engine/discovery/discovery.js'))).toBe(true);
    expect(run.modules.some((m) => ENGINE_RUN.test(m))).toBe(true);
    expect(run.modules.some((m) => RUNNER.test(m))).toBe(true);
    expect(run.modules.filter((m) => VITEST.test(m))).toEqual([]);
  });

  // A listener that accepts and never answers: the login waits out the 2 s bound, and Vitest's
  // thread has long started. (A login that breaks at once ends that thread before it has read
  // a module, as it should.)
  test('control: a target that accepts TCP and then never answers the login does load Vitest alongside it', async () => {
    const held: net.Socket[] = [];
    const server = net.createServer((socket) => void held.push(socket));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as net.AddressInfo).port;
      const run = await loaded(['--target', `postgres://u:p@127.0.0.1:${port}/d`, '--no-store', '--timeout', '2']);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/STEP_TIMEOUT/);
      expect(run.modules.some((m) => VITEST.test(m))).toBe(true);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});
