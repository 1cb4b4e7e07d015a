/**
 * A target that is no PostgreSQL server (the wrong port: SSH, HTTP, a TLS-only service, a
 * server that closes at once or sends garbage forever). The new-user trial got a bare
 * "ParameterStatus ('S'), declared length 1397239090: above the bound..." for an SSH port.
 * Now: exit 2 before any check, one line that says the target does not speak the PostgreSQL
 * protocol, its first bytes as escaped text (bounded), and "check the host and port"; the code
 * stays PROTOCOL_VIOLATION (NOT_POSTGRES when not one byte came). Controls: a PostgreSQL-shaped
 * malformed first message keeps the wire guard's own sentence, and a real PostgreSQL-speaking
 * server is not called foreign.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { startForeignServer, type ForeignKind, type ForeignServer } from '../../fixtures/foreign-server.js';
import { startMisbehavingServer } from '../../fixtures/misbehaving-server.js';
import { runCli, type CliRun } from '../support/cli.js';

const PASSWORD = 'foreign-secret';
const servers: ForeignServer[] = [];
const FOREIGN = /does not speak the PostgreSQL protocol/;

async function against(kind: ForeignKind): Promise<CliRun & { server: ForeignServer }> {
  const server = await startForeignServer(kind);
  servers.push(server);
  try {
    const run = await runCli(['--target', `postgres://u:${PASSWORD}@127.0.0.1:${server.port}/d`, '--timeout', '2s'], {
      timeoutMs: 120_000,
    });
    return { ...run, server };
  } finally {
    await server.close();
  }
}

/** The run ended by itself with exit 2, one error line on stderr, no report, no password. */
function expectRefusedInOneLine(run: CliRun): string {
  expect(run.signal).toBeNull();
  expect(run.code, run.stderr).toBe(2);
  const lines = run.stderr.trim().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  expect(run.stdout).not.toMatch(/Summary|CHECK/);
  expect(`${run.stdout}${run.stderr}`).not.toContain(PASSWORD);
  // A hang guard, not a timing target: the step bound is 2 s.
  expect(run.ms).toBeLessThan(60_000);
  return lines[0]!;
}

afterAll(() => {
  expect(servers.filter((s) => s.listening || s.openConnections > 0).map((s) => s.port)).toEqual([]);
});

describe('a target that does not speak PostgreSQL', () => {
  test('an SSH server (its greeting comes before the startup): the greeting as text', async () => {
    const run = await against('ssh');
    const line = expectRefusedInOneLine(run);
    expect(line).toMatch(
      /^pooltest: PROTOCOL_VIOLATION: u@127\.0\.0\.1:\d+\/d does not speak the PostgreSQL protocol: the first bytes it sent were "SSH-2\.0-OpenSSH_9\.2\\r\\n" \(an SSH server's greeting\); check the host and port/,
    );
  });

  test('an HTTP server answering 400: the start of its answer, bounded', async () => {
    const line = expectRefusedInOneLine(await against('http'));
    expect(line).toMatch(FOREIGN);
    expect(line).toMatch(
      /the first bytes it sent were "HTTP\/1\.1 400 Bad Request\\r\\nContent-Type: text\/pla" \(the first 48 of the \d+ bytes of its first read\) \(an HTTP server's answer\)/,
    );
  });

  test('a TLS alert, and a TLS ServerHello, in answer to the startup: escaped bytes, named as TLS', async () => {
    for (const kind of ['tls-alert', 'tls-hello'] as const) {
      const line = expectRefusedInOneLine(await against(kind));
      expect(line).toMatch(FOREIGN);
      expect(line).toMatch(
        kind === 'tls-alert' ? /"\\x15\\x03\\x01\\x00\\x02\\x02\(" / : /"\\x16\\x03\\x03\\x001\\x02/,
      );
      expect(line).toMatch(/\(a TLS record: a service that speaks TLS from its first byte\)/);
      // No raw control byte reaches the terminal.
      expect(line).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    }
  });

  test('garbage forever: refused at its first byte, the read bounded, the line too', async () => {
    const run = await against('garbage-forever');
    const line = expectRefusedInOneLine(run);
    expect(line).toMatch(/the first bytes it sent were "A{48}" \(the first 48 of the \d+ bytes of its first read\);/);
    expect(line.length).toBeLessThan(400);
    // pooltest stopped reading at once: the server could not push more than socket buffers hold.
    expect(run.server.bytesSent).toBeLessThan(64 * 1024 * 1024);
  });

  test('an SSH server asked for TLS (sslmode=require): TLS_FAILED, saying the SSLRequest got no PostgreSQL answer', async () => {
    const server = await startForeignServer('ssh');
    servers.push(server);
    try {
      const url = `postgres://u:${PASSWORD}@127.0.0.1:${server.port}/d?sslmode=require`;
      const line = expectRefusedInOneLine(await runCli(['--target', url, '--timeout', '2s']));
      expect(line).toMatch(
        /^pooltest: TLS_FAILED: u@127\.0\.0\.1:\d+\/d answered the SSLRequest with neither 'S' nor 'N' alone: it does not speak the PostgreSQL protocol .*check the host and port/,
      );
    } finally {
      await server.close();
    }
  });

  // Hostile-input hunt: the flood was bounded, but said "did not answer the PostgreSQL startup".
  test('a login that floods ParameterStatus and never ends: STEP_TIMEOUT saying it began answering', async () => {
    const run = await against('startup-flood');
    const line = expectRefusedInOneLine(run);
    expect(line).toMatch(
      /^pooltest: STEP_TIMEOUT: u@127\.0\.0\.1:\d+\/d began answering the PostgreSQL startup \(\d+ bytes\) but did not end it with ReadyForQuery within 2000 ms/,
    );
    expect(line).not.toMatch(FOREIGN);
    expect(run.server.bytesSent).toBeGreaterThan(0);
  });

  test('a server that closes without sending a byte: NOT_POSTGRES, with the same advice', async () => {
    const line = expectRefusedInOneLine(await against('close'));
    expect(line).toMatch(
      /^pooltest: NOT_POSTGRES: u@127\.0\.0\.1:\d+\/d closed the connection without answering the PostgreSQL startup \(not one byte\): it does not speak the PostgreSQL protocol, or it drops this client at once; check the host and port/,
    );
  });

  test('control: a PostgreSQL-shaped wrong first message keeps the wire guard sentence (not "check the port")', async () => {
    // ReadyForQuery with length 0 before any authentication: a broken server, not a foreign one.
    const server = await startMisbehavingServer({ fault: 'length-zero', at: 'startup' });
    try {
      const run = await runCli(['--target', `postgres://u:${PASSWORD}@127.0.0.1:${server.port}/d`, '--timeout', '2s']);
      const line = expectRefusedInOneLine(run);
      expect(line).toMatch(
        /PROTOCOL_VIOLATION: the target broke the PostgreSQL wire protocol during discovery, before any check could run \(step D \S+: protocol violation by the server: ReadyForQuery \('Z'\), declared length 0: an answer to the startup begins with/,
      );
      expect(line).not.toMatch(FOREIGN);
    } finally {
      await server.close();
    }
  });

  test('control: a server that speaks PostgreSQL is not called foreign (discovery gets through)', async () => {
    const server = await startMisbehavingServer({ fault: 'split', at: 'startup' });
    try {
      const run = await runCli(
        [
          '--target',
          `postgres://u:${PASSWORD}@127.0.0.1:${server.port}/d`,
          '--timeout',
          '2s',
          '--only',
          'session/set-leak',
        ],
        { json: true },
      );
      expect(`${run.stdout}${run.stderr}`).not.toMatch(FOREIGN);
      expect(run.report?.discovery.serverVersion).toBe('16.0');
    } finally {
      await server.close();
    }
  });
});
