/**
 * Test helpers: run `pooltest audit` in-process with captured output, and a scratch folder
 * that is removed after the file's tests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { auditCommand } from '../../audit/audit-command.js';

/** What one audit run printed and returned. */
export interface AuditRun {
  code: number;
  stdout: string;
  stderr: string;
}

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** Runs the audit command with `args`; `env` decides colour (NO_COLOR by default). */
export async function runAudit(
  args: string[],
  env: NodeJS.ProcessEnv = { NO_COLOR: '1' },
  stdin?: NodeJS.ReadableStream,
): Promise<AuditRun> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await auditCommand(args, { stdout, stderr, env, ...(stdin ? { stdin } : {}) });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** A scratch folder made before the file's tests and removed after them. */
export interface ScratchDir {
  readonly path: string;
  file(name: string): string;
}

/** Registers beforeAll/afterAll hooks that make and remove a scratch folder. */
export function useScratchDir(prefix: string): ScratchDir {
  let path = '';
  beforeAll(async () => {
    path = await mkdtemp(join(tmpdir(), `pooltest-audit-${prefix}-`));
  });
  afterAll(async () => {
    if (path !== '') await rm(path, { recursive: true, force: true });
  });
  return {
    get path() {
      return path;
    },
    file: (name) => join(path, name),
  };
}
