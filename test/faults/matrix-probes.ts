/**
 * What the fault matrix (fault-matrix.ts) looks at around each row: when the run reached the
 * row's phase, whether the target answers again, and what the run left on the server or in its
 * temp folder.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { waitForLogin } from '../../fixtures/login.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import type { PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { superuserView, withSuperuser } from '../safety/trace-inspection.js';

export type Phase = 'discovery' | 'check' | 'sweep';

/** Fires at the phase: discovery (a pooltest session on the server, before the discovery line), a check (after the first result), the sweep (after the last). */
export function watchPhase(pgFixture: PostgresFixture, child: ChildProcess, phase: Phase, fire: () => void): void {
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (phase === 'check' && /\[\s*1\/\d+\]/.test(stderr)) fire();
    if (phase === 'sweep' && /, done\n/.test(stderr)) fire();
  });
  if (phase === 'discovery') {
    void withSuperuser(pgFixture, async (c) => {
      for (const deadline = Date.now() + 20_000; Date.now() < deadline && !/Discovery/.test(stderr);) {
        const r = await c.query(`SELECT 1 FROM pg_stat_activity WHERE application_name LIKE 'pooltest-%' LIMIT 1`);
        if (r.rowCount) return fire();
        await sleep(2);
      }
    });
  }
}

/** Waits (bounded) until the pooler lets a client log in again. */
export async function targetAnswers(p: PoolerFixture): Promise<void> {
  await waitForLogin(
    { port: p.port, user: p.user, password: p.password, database: p.database, caFile: null },
    { timeoutMs: 20_000, giveUpIf: () => null },
  );
}

/** pooltest state on the server, seen as the superuser (PgBouncer may need a moment to end a dead client's server). */
export async function serverLeftovers(pgFixture: PostgresFixture): Promise<string[]> {
  let found: string[] = [];
  for (let i = 0; i < 30; i++) {
    const v = await superuserView(pgFixture);
    found = [
      ...(v.advisoryLocks > 0 ? [`${v.advisoryLocks} advisory lock(s)`] : []),
      ...v.tempTables.map((t) => `temp table ${t}`),
      ...v.schemas.map((s) => `schema ${s}`),
      ...v.tables.map((t) => `table ${t}`),
      ...(v.idleInTransaction > 0 ? [`${v.idleInTransaction} pooltest session(s) idle in transaction`] : []),
    ];
    if (found.length === 0) return [];
    await sleep(100);
  }
  return found;
}

/** Anything the CLI left in its temp folder, except Vitest's cache (kept between runs by design). */
export function folderLeftovers(tmp: string): string[] {
  return readdirSync(tmp)
    .filter((n) => n !== 'pooltest-vite-cache')
    .map((n) => `temp ${n}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
