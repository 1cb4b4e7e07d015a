/**
 * Running the built CLI and sending it a signal at a moment of its run, found from what the
 * run shows rather than from a clock: a line on stderr or stdout, its processes (the fixture
 * servers an embedded run starts), or a session of it on the server. A moment found this way
 * lands in its phase on a quiet machine and on a loaded one alike; a fixed offset does not
 * (issue 21: under load 11 of 13 offsets fell before discovery ended).
 */
import { readFileSync } from 'node:fs';
import type { PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { processFamily, type ProcessInfo } from '../../fixtures/proc-table.js';
import { withSuperuser } from '../safety/trace-inspection.js';
import { runCli, type CliRun } from '../support/cli.js';

/** When to send the signal. */
export type When =
  /** Milliseconds after the spawn (0: as the process starts, before any JavaScript may run). */
  | { ms: number }
  /** Once the run's stderr (or stdout) so far matches. */
  | { stderr: RegExp }
  | { stdout: RegExp }
  /** Once the run's descendants (fixture servers, with their command lines) satisfy this. */
  | { family: (servers: Array<ProcessInfo & { cmd: string }>) => boolean }
  /**
   * Once a session of a pooltest run shows on this server (discovery under way); with
   * `running`, once one runs a statement LIKE it (a check's own query: that check is in flight).
   */
  | {
      sessionOn: PostgresFixture;
      running?: string;
      /** With `running`: once this many sessions run it at once (default 1). */
      atLeast?: number;
      /**
       * Then this long more: a statement seen running on the server has sent the rows before
       * it (a flushed pid), but a busy client may not have read them yet.
       */
      settleMs?: number;
    };

export interface Moment {
  /** For messages and the log: "discovery", "the sweep". */
  name: string;
  sig: NodeJS.Signals;
  when: When;
}

export interface SignalledRun {
  run: CliRun;
  moment: string;
  /** When the signal went, in ms after the spawn (Infinity when it never went). */
  offsetMs: number;
  sig: NodeJS.Signals;
  /** False when the run had already ended before its moment came. */
  delivered: boolean;
  /** The CLI's descendants (fixture servers) and their folders, just before the signal. */
  servers: ProcessInfo[];
  folders: string[];
  /** Progress lines by check id: when each arrived, in ms after the signal (negative: before). */
  reported: Map<string, number>;
}

/** How often a process or server condition is looked at while the run goes. */
const POLL_MS = 5;

export async function signalAt(args: string[], m: Moment): Promise<SignalledRun> {
  let delivered = false;
  let servers: ProcessInfo[] = [];
  let folders: string[] = [];
  const reported = new Map<string, number>();
  let sentAt = Infinity;
  let spawnedAt = 0;
  let stopPolling = (): void => undefined;
  const run = await runCli(args, {
    json: true,
    timeoutMs: 60_000,
    onSpawn(child) {
      spawnedAt = performance.now();
      let stderr = '';
      let stdout = '';
      let sent = false;
      const ended = (): boolean => child.exitCode !== null || child.signalCode !== null;
      const send = (): void => {
        if (sent || ended()) return;
        sent = true;
        stopPolling();
        servers = processFamily(child.pid!).filter((p) => p.pid !== child.pid);
        folders = servers.flatMap((p) => fixtureFolder(p.pid));
        sentAt = performance.now();
        delivered = child.kill(m.sig);
      };
      const w = m.when;
      // Progress lines: "  [1/2] session/set-leak: leaked pass (70 ms), 1 left".
      child.stderr?.on('data', (d: Buffer) => {
        stderr += d.toString();
        for (const x of d.toString().matchAll(/\[\s*\d+\/\d+\]\s+(\S+):/g))
          reported.set(x[1]!, performance.now() - sentAt);
        if ('stderr' in w && w.stderr.test(stderr)) send();
      });
      child.stdout?.on('data', (d: Buffer) => {
        stdout += d.toString();
        if ('stdout' in w && w.stdout.test(stdout)) send();
      });
      child.on('exit', () => stopPolling());
      if ('ms' in w) {
        const t = setTimeout(send, w.ms);
        stopPolling = () => clearTimeout(t);
      } else if ('family' in w) {
        const t = setInterval(() => {
          const family = processFamily(child.pid!).filter((p) => p.pid !== child.pid);
          if (w.family(family.map((p) => ({ ...p, cmd: cmdline(p.pid) })))) send();
        }, POLL_MS);
        stopPolling = () => clearInterval(t);
      } else if ('sessionOn' in w) {
        let polling = true;
        stopPolling = () => (polling = false);
        void withSuperuser(w.sessionOn, async (c) => {
          while (polling && !ended()) {
            const r = await c.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'pooltest-%' AND ($1::text IS NULL OR (state = 'active' AND query LIKE $1))`,
              [w.running ?? null],
            );
            if ((r.rows[0]?.n ?? 0) >= (w.atLeast ?? 1)) {
              if (w.settleMs) await new Promise((resolve) => setTimeout(resolve, w.settleMs));
              return send();
            }
            await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          }
        }).catch(() => undefined);
      }
    },
  });
  stopPolling();
  return {
    run,
    moment: m.name,
    offsetMs: Math.round(sentAt - spawnedAt),
    sig: m.sig,
    delivered,
    servers,
    folders,
    reported,
  };
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/**
 * The pooltest-* temp folder a fixture server runs from (postgres -D ..., pgbouncer ....ini).
 * Not the initdb template a fixture is copied from (pooltest-template-*): a cache kept on purpose.
 */
function fixtureFolder(pid: number): string[] {
  const m = /(\/\S*\/pooltest-[^/\s]+)/.exec(cmdline(pid));
  return m && !m[1]!.includes('/pooltest-template-') ? [m[1]!] : [];
}
