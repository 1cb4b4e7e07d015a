/**
 * A watch that could not see the traffic must not report a clean result. Named after the bug:
 * with nothing listening on the upstream's port, `pooltest watch` ran the command anyway and
 * ended with "No statement relied on session state", the refusal only a warning.
 *
 * Real parts: the built CLI, a real PostgreSQL, a port where nothing listens, and the fault
 * proxy in front of PostgreSQL to take the upstream away in the middle of a run. Each case has
 * its control, where the upstream stays and the same command gets a clean report.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.js';
import { freePort } from '../../fixtures/free-port.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import type { WatchReport } from '../../watch/watch-types.js';
import { REPO, runCli, type CliRun } from '../support/cli.js';
import { watchSchemaErrors } from '../support/watch-schema.js';

let server: PostgresFixture;
let dir: string;
const CLIENT = path.join(REPO, 'test/watch/clients/outlives-upstream.mjs');

beforeAll(async () => {
  server = await startPostgres();
  dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-watch-unreachable-'));
});
afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const upstreamOn = (port: number): string =>
  `postgres://${server.user}:${encodeURIComponent(server.password)}@127.0.0.1:${port}/${server.database}?sslmode=disable`;

/** A command that leaves a file behind when it runs at all. */
const markerCommand = (marker: string): string[] => [
  'node',
  '-e',
  `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`,
];

describe('an upstream where nothing listens', () => {
  test('is TARGET_REFUSED, exit 2, before the command runs, and quickly', async () => {
    const port = await freePort();
    const marker = path.join(dir, 'refused-ran');
    const run = await runCli(['watch', '--upstream', upstreamOn(port), '--', ...markerCommand(marker)]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `pooltest watch: TARGET_REFUSED: upstream 127.0.0.1:${port}: connection refused: nothing listens on port ${port}`,
    );
    expect(existsSync(marker)).toBe(false);
    expect(run.stdout).not.toContain('No statement relied on session state');
    expect(run.stdout + run.stderr).not.toContain(server.password);
    // A refusal is answered at once: nowhere near the 10 s connect bound.
    expect(run.ms).toBeLessThan(8_000);
  });

  test('control: the same command with the upstream listening runs and exits 0', async () => {
    const marker = path.join(dir, 'listening-ran');
    const run = await runCli(['watch', '--upstream', upstreamOn(server.port), '--', ...markerCommand(marker)]);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });
});

describe('an upstream on a Unix socket (a host that is a directory, as for libpq)', () => {
  // The watch connected to host and port only: a socket directory as the host was looked up as
  // a host name. The fixture trusts its superuser over the socket.
  const overSocket = (socketDir: string): string =>
    `host=${socketDir} port=${server.port} user=postgres dbname=${server.database}`;

  test('the watch relays to it: the command runs through the proxy and the report counts its traffic', async () => {
    const json = path.join(dir, 'socket.json');
    const run = await runCli(
      [
        'watch',
        '--upstream',
        overSocket(server.socketDir),
        '--json',
        json,
        '--',
        'node',
        path.join(REPO, 'test/watch/clients/control.mjs'),
      ],
      { timeoutMs: 90_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).toContain('control done');
    const watch = JSON.parse(readFileSync(json, 'utf8')) as WatchReport;
    expect(watchSchemaErrors(watch)).toEqual([]);
    expect(watch.summary.connections).toBeGreaterThanOrEqual(1);
    expect(watch.summary.statements).toBeGreaterThan(0);
    expect(watch.summary).toMatchObject({ unanswered: 0 });
  });

  test('control: a socket directory where nothing listens is TARGET_REFUSED naming the socket file, before the command runs', async () => {
    const empty = mkdtempSync(path.join(dir, 'no-server-'));
    const marker = path.join(dir, 'socket-refused-ran');
    const run = await runCli(['watch', '--upstream', overSocket(empty), '--', ...markerCommand(marker)]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `pooltest watch: TARGET_REFUSED: upstream socket "${empty}/.s.PGSQL.${server.port}": no server listens on that socket`,
    );
    expect(existsSync(marker)).toBe(false);
  });
});

describe('an upstream that goes away during the run', () => {
  /**
   * Runs the client under the watch with the fault proxy as upstream; after its first
   * connection, `between` acts on the proxy, then the client tries a second connection.
   */
  async function outage(
    name: string,
    between: (proxy: FaultProxy) => Promise<void>,
  ): Promise<CliRun & { watch: WatchReport }> {
    const signals = mkdtempSync(path.join(dir, `${name}-`));
    const json = path.join(dir, `${name}.json`);
    const proxy = await startFaultProxy({ upstreamPort: server.port });
    try {
      const running = runCli(['watch', '--upstream', upstreamOn(proxy.port), '--json', json, '--', 'node', CLIENT], {
        env: { SIGNAL_DIR: signals },
        timeoutMs: 90_000,
      });
      let ended = false;
      void running.then(() => (ended = true));
      // Until the first connection is done (or the watch ended without it: the asserts say why).
      const deadline = Date.now() + 60_000;
      while (!existsSync(path.join(signals, 'first-done')) && !ended && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      await between(proxy);
      await writeFile(path.join(signals, 'go-on'), '');
      const run = await running;
      const watch = JSON.parse(readFileSync(json, 'utf8')) as WatchReport;
      expect(watchSchemaErrors(watch)).toEqual([]);
      expect(run.stdout + run.stderr).not.toContain(server.password);
      return { ...run, watch };
    } finally {
      await proxy.close();
    }
  }

  test('the connection that could not reach it is counted, the report is not clean, exit 2', async () => {
    const run = await outage('gone', (proxy) => proxy.close());
    // The command itself swallowed the failure and succeeded: only the watch can tell.
    expect(run.stdout).toContain('second connection failed');
    expect(run.watch.command?.exitCode).toBe(0);
    expect(run.code, run.stderr).toBe(2);
    expect(run.watch.summary).toMatchObject({ connections: 2, unanswered: 1 });
    expect(run.stdout).toContain('1 of 2 connection(s) got no answer from the upstream');
    expect(run.stdout).not.toContain('No statement relied on session state left by');
    expect(run.stdout).toContain('No statement relied on session state in the 1 connection(s) the upstream answered');
    expect(run.watch.warnings.join('\n')).toContain('connection refused: nothing listens on port');
  });

  test('an upstream that accepts and closes at once is not an answer either', async () => {
    const run = await outage('closing', async (proxy) => proxy.refuse(true));
    expect(run.stdout).toContain('second connection failed');
    expect(run.code, run.stderr).toBe(2);
    expect(run.watch.summary).toMatchObject({ connections: 2, unanswered: 1 });
  });

  test('control: the upstream stays, both connections are seen, a clean report and exit 0', async () => {
    const run = await outage('stays', async () => undefined);
    expect(run.stdout).toContain('second connection worked');
    expect(run.code, run.stderr).toBe(0);
    expect(run.watch.summary).toMatchObject({ connections: 2, unanswered: 0 });
    expect(run.watch.summary.statements).toBeGreaterThanOrEqual(2);
    expect(run.stdout).toContain('No statement relied on session state left by an earlier transaction');
    expect(run.stdout).not.toContain('got no answer from the upstream');
  });
});
