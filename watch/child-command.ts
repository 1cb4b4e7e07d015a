/**
 * Running the application's command (`npm test`) under the watch: its PG* variables point at
 * the proxy, SIGINT/SIGTERM are forwarded to it, and its exit is awaited with a bound after a
 * forwarded signal (then SIGKILL), so the watch always gets to write its report.
 */
import { spawn } from 'node:child_process';
import { PooltestError } from '../engine/record/errors.js';
import type { Target } from '../engine/target/target.js';

/** How the command ended. */
export interface ChildExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** After a forwarded signal, how long the command gets to exit before SIGKILL. */
const KILL_AFTER_MS = 10_000;

/**
 * The environment the command runs with: the parent's, with the connection pointed at the
 * proxy. The password (only when the upstream has one) is in PGPASSWORD and DATABASE_URL; the
 * printable description never shows it.
 */
export function childEnvironment(
  base: NodeJS.ProcessEnv,
  proxy: { host: string; port: number },
  upstream: Target,
): { env: NodeJS.ProcessEnv; shown: string } {
  const env: NodeJS.ProcessEnv = {
    ...base,
    PGHOST: proxy.host,
    PGPORT: String(proxy.port),
    PGUSER: upstream.user,
    PGDATABASE: upstream.database,
    PGSSLMODE: 'disable',
  };
  const auth = `${encodeURIComponent(upstream.user)}${upstream.password !== undefined ? `:${encodeURIComponent(upstream.password)}` : ''}`;
  const url = (a: string): string =>
    `postgres://${a}@${proxy.host}:${proxy.port}/${encodeURIComponent(upstream.database)}?sslmode=disable`;
  env.DATABASE_URL = url(auth);
  if (upstream.password !== undefined) env.PGPASSWORD = upstream.password;
  const shownAuth = `${encodeURIComponent(upstream.user)}${upstream.password !== undefined ? ':***' : ''}`;
  const shown = [
    `PGHOST=${proxy.host}`,
    `PGPORT=${proxy.port}`,
    `PGUSER=${upstream.user}`,
    `PGDATABASE=${upstream.database}`,
    'PGSSLMODE=disable',
    ...(upstream.password !== undefined ? ['PGPASSWORD=***'] : []),
    `DATABASE_URL=${url(shownAuth)}`,
  ].join(' ');
  return { env, shown };
}

/** Runs `argv` with `env` and inherited stdio; resolves when it exits. */
export function runChild(argv: string[], env: NodeJS.ProcessEnv): Promise<ChildExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: 'inherit', env });
    let killTimer: NodeJS.Timeout | null = null;
    const forward = (signal: NodeJS.Signals): void => {
      child.kill(signal);
      killTimer ??= setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    };
    const onInt = (): void => forward('SIGINT');
    const onTerm = (): void => forward('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    const cleanup = (): void => {
      process.removeListener('SIGINT', onInt);
      process.removeListener('SIGTERM', onTerm);
      if (killTimer) clearTimeout(killTimer);
    };
    child.once('error', (error) => {
      cleanup();
      reject(new PooltestError('BAD_ARGUMENTS', `cannot run ${argv[0]}: ${error.message}`));
    });
    child.once('exit', (exitCode, signal) => {
      cleanup();
      resolve({ exitCode, signal });
    });
  });
}

/** The shell's convention: the code, or 128 + the signal's number. */
export function exitStatus(exit: ChildExit): number {
  if (exit.exitCode !== null) return exit.exitCode;
  const numbers: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };
  return 128 + (numbers[exit.signal ?? ''] ?? 1);
}
