/**
 * Running the built CLI as a user would: a child process, its exit code, stdout, stderr and
 * (when asked) the JSON report it wrote.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Report } from '../../engine/types.js';
import { assertValidReport } from './report-schema.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(REPO, 'dist/cli/main.js');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  report: Report | null;
  ms: number;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  /** Ask for a JSON report and parse it. */
  json?: boolean;
  timeoutMs?: number;
  /**
   * Working folder of the CLI (where it stores .pooltest/runs). Defaults to a temp folder
   * removed afterwards, so test runs never pile up history in the repository.
   */
  cwd?: string;
  /** Called with the child right after it starts (to send signals). */
  onSpawn?(child: ReturnType<typeof spawn>): void;
}

export async function runCli(args: string[], opts: CliOptions = {}): Promise<CliRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-cli-'));
  const jsonFile = path.join(dir, 'report.json');
  const fullArgs = opts.json ? [...args, '--json', jsonFile] : args;
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, ...fullArgs], {
    cwd: opts.cwd ?? dir,
    env: { ...cleanEnv(), NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  opts.onSpawn?.(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 150_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (c, s) => resolve([c, s])),
  );
  clearTimeout(timer);
  let report: Report | null = null;
  try {
    report = JSON.parse(readFileSync(jsonFile, 'utf8')) as Report;
  } catch {
    report = null;
  }
  rmSync(dir, { recursive: true, force: true });
  // Every report a test produces must match the published schema.
  if (report !== null) assertValidReport(report);
  return { code, signal, stdout, stderr, report, ms: Math.round(performance.now() - started) };
}

/** The test's environment without PG* variables, so only what a test passes is used. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PG')));
}

/** The outcome of each check, by id. */
export function outcomes(report: Report | null): Record<string, string | null> {
  return Object.fromEntries((report?.checks ?? []).map((c) => [c.id, c.outcome]));
}
