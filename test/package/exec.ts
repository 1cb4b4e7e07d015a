/**
 * Running a command the way a user's shell would (npm, npx, node) and collecting what it said.
 * The environment is the test's without PG* variables, so only what a test passes is used.
 */
import { spawn } from 'node:child_process';

export interface Exec {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function exec(
  command: string,
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Exec> {
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('PG') && !k.startsWith('POOLTEST_')),
    ),
    NO_COLOR: '1',
    ...opts.env,
  };
  // Vitest marks its own workers with these; a nested Vitest must not think it is one.
  for (const k of ['VITEST', 'VITEST_WORKER_ID', 'VITEST_POOL_ID', 'TEST', 'NODE_ENV']) delete env[k];
  const child = spawn(command, args, { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 180_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}
