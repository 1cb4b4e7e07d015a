/**
 * What the run command tests when the user did not name a target: a pooler in containers
 * (`--spawn`), or, with no target at all, a throwaway PostgreSQL and PgBouncer from local
 * binaries. Either way the caller gets URLs to test and a stop function it must call.
 */
import type { CliOptions } from './args.js';
import { spawnPooler } from './spawn.js';

/** Endpoints pooltest started itself. */
export interface StartedEndpoints {
  target: string;
  direct: string;
  /** The profile that matches what was started, when one does. */
  profile: string | null;
  /** Always true: pooltest owns these, so checks that disturb a shared server may run. */
  fixture: true;
  stop(): Promise<void>;
}

/** Starts what `opts` asks for, or returns null when the user gave a target (flag or PG* env). */
export async function startEndpoints(
  opts: CliOptions,
  env: NodeJS.ProcessEnv,
  log: (text: string) => void,
): Promise<StartedEndpoints | null> {
  if (opts.spawn !== undefined) {
    log(`--spawn ${opts.spawn} (experimental, see --help): starting containers (the first run pulls images)...`);
    const spawned = await spawnPooler(opts.spawn);
    log(`Started ${spawned.description}.`);
    // The image's PgBouncer version is whatever the image ships, so no built-in profile is
    // assumed: observations only unless --profile or --expect says otherwise.
    return { target: spawned.target, direct: spawned.direct, profile: null, fixture: true, stop: spawned.stop };
  }
  // Any part of a target, as psql would take it (flags or PG* variables), means the user's own.
  if (opts.target !== undefined || opts.host !== undefined || opts.port !== undefined || env.PGHOST || env.PGPORT)
    return null;
  log('No --target: starting a throwaway PostgreSQL and PgBouncer (transaction mode, pool of 2)...');
  const { startStack } = await import('../fixtures/stack.js');
  const stack = await startStack('pgbouncer-transaction');
  return {
    target: stack.target.url(),
    direct: stack.postgres.url(),
    profile: 'pgbouncer-transaction',
    fixture: true,
    stop: () => stack.stop(),
  };
}
