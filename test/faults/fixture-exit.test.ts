/**
 * The throwaway PgBouncer of `npx pooltest` (no --target) killed while discovery runs. The
 * new-user trial: the run failed with NOT_POSTGRES or STEERING_FAILED, what discovery's clients
 * made of a pooler that was gone, though pooltest had started that process and saw it exit.
 * The error must be FIXTURE_FAILED, naming the fixture and how it ended.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { processFamily } from '../../fixtures/proc-table.js';
import { runCli } from '../support/cli.js';

/** How often the CLI's processes and the pooler's log are looked at. */
const POLL_MS = 5;

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** Logins the PgBouncer fixture has logged so far (its readiness check is the first). */
function logins(iniFile: string): number {
  try {
    const log = readFileSync(path.join(path.dirname(iniFile), 'pgbouncer.log'), 'utf8');
    return log.match(/login attempt/g)?.length ?? 0;
  } catch {
    return 0;
  }
}

test('the embedded PgBouncer killed during discovery: FIXTURE_FAILED names it and its signal', async () => {
  let killed: number | null = null;
  const run = await runCli([], {
    timeoutMs: 60_000,
    onSpawn(child) {
      const poll = setInterval(() => {
        for (const p of processFamily(child.pid!)) {
          const ini = /(\S+\/pgbouncer\.ini)/.exec(cmdline(p.pid))?.[1];
          // A login after the fixture's own readiness login: discovery's, the run is under way.
          if (!ini || logins(ini) < 2) continue;
          clearInterval(poll);
          killed = p.pid;
          process.kill(p.pid, 'SIGKILL');
          return;
        }
      }, POLL_MS);
      child.on('exit', () => clearInterval(poll));
    },
  });
  expect(killed, run.stderr).not.toBeNull();
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toMatch(
    new RegExp(`^pooltest: FIXTURE_FAILED: the throwaway pgbouncer .*\\(pid ${killed}\\) was killed by SIGKILL`, 'm'),
  );
});
