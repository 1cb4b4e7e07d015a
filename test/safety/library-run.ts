/**
 * A run through the library API (`run()` from the built engine) in a child process, as the CLI
 * makes it but with a run id chosen by the test, so the test can plant state carrying that
 * run's markers. The report goes through the real JSON reporter.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO } from '../support/cli.js';
import type { Report } from '../../engine/types.js';

const SCRIPT = `
const [runUrl, jsonUrl, optsText, file] = process.argv.slice(1);
const { run } = await import(runUrl);
const { writeJsonReport } = await import(jsonUrl);
const report = await run(JSON.parse(optsText));
writeJsonReport(report, file);
process.exitCode = report.summary.exitCode;
`;

export interface LibraryRun {
  code: number | null;
  report: Report | null;
  stderr: string;
}

export async function libraryRun(opts: Record<string, unknown>, timeoutMs = 120_000): Promise<LibraryRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-lib-'));
  const file = path.join(dir, 'report.json');
  const url = (rel: string): string => new URL(`file://${path.join(REPO, rel)}`).href;
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      SCRIPT,
      url('dist/runner/run.js'),
      url('dist/reporters/json-reporter.js'),
      JSON.stringify(opts),
      file,
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  let report: Report | null = null;
  try {
    report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  } catch {
    report = null;
  }
  rmSync(dir, { recursive: true, force: true });
  return { code, report, stderr };
}
