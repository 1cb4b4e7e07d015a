/**
 * Malformed traffic from either side, and a silent or unreachable peer: each is reported as a
 * warning and the connection is relayed or closed in bounded time, never left hanging (an
 * upstream unreachable from the start stops the watch before it starts). The hostile parts are
 * real sockets: a raw client writing garbage, and a loopback "server" that answers a
 * StartupMessage with bytes that are not a message.
 */
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { startWatch, type Watching } from '../../watch/watch.js';

let server: PostgresFixture;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

/** A loopback port where nothing listens (taken, then released). */
async function deadPort(): Promise<number> {
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  return port;
}

/** Writes `bytes` on a raw connection to the proxy and resolves with how long until it closed. */
function rawClient(w: Watching, bytes: Buffer[]): Promise<{ ms: number; received: Buffer }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(w.port, w.host);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('the proxy left the connection open for 10 s'));
    }, 10_000);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ ms: Date.now() - started, received: Buffer.concat(chunks) });
    });
    socket.on('connect', () => {
      for (const b of bytes) socket.write(b);
    });
  });
}

function startupMessage(user: string, database: string): Buffer {
  const body = Buffer.from(`user\0${user}\0database\0${database}\0\0`);
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, body]);
}

describe('malformed traffic is reported and never hangs', () => {
  test('garbage instead of a startup packet: closed at once, with a warning', async () => {
    const w = await startWatch({ upstream: server.url() });
    const { ms } = await rawClient(w, [Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')]);
    const report = await w.stop();
    expect(ms).toBeLessThan(5_000);
    expect(report.warnings.join('\n')).toMatch(
      /malformed startup packet \(protocol violation by the client: startup packet, declared length \d+: a startup packet's length must be 8 to 10000; bytes at stream offset 0: 47 45 54 .*\); closed/,
    );
  });

  test('a typed message with a negative length after the startup: warned, relayed, and the server ends it', async () => {
    const w = await startWatch({ upstream: server.url() });
    const bad = Buffer.from([0x51, 0xff, 0xff, 0xff, 0xff]);
    // Sent with the startup: the server sees exactly these bytes and closes the connection.
    const { ms, received } = await rawClient(w, [Buffer.concat([startupMessage(server.user, server.database), bad])]);
    const report = await w.stop();
    expect(ms).toBeLessThan(10_000);
    expect(received.length).toBeGreaterThan(0);
    expect(report.warnings.join('\n')).toMatch(
      /malformed client traffic \(protocol violation by the client: Query \('Q'\), declared length -1: a declared length below 4.*\); relayed unobserved/,
    );
  });

  test('a server answering with garbage: warned, relayed to the client unchanged, and closed', async () => {
    const garbage = Buffer.from([0x52, 0x00, 0x00, 0x00, 0x02, 0x99]);
    const fake = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () => socket.end(garbage));
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    try {
      const port = (fake.address() as net.AddressInfo).port;
      const w = await startWatch({ upstream: `postgres://u@127.0.0.1:${port}/d?sslmode=disable` });
      // A raw client: node-postgres itself throws an uncaught RangeError on these bytes.
      const { ms, received } = await rawClient(w, [startupMessage('u', 'd')]);
      const report = await w.stop();
      expect(ms).toBeLessThan(5_000);
      expect(received.equals(garbage)).toBe(true);
      expect(report.warnings.join('\n')).toMatch(
        /malformed server traffic \(protocol violation by the server: Authentication \('R'\), declared length 2: a declared length below 4/,
      );
    } finally {
      await new Promise((resolve) => fake.close(resolve));
    }
  });

  test("an SSLRequest sent with the start of a StartupMessage split across writes: 'N' answered, only the startup relayed", async () => {
    const w = await startWatch({ upstream: server.url() });
    const ssl = Buffer.alloc(8);
    ssl.writeInt32BE(8, 0);
    ssl.writeInt32BE(80877103, 4);
    const socket = net.connect(w.port, w.host);
    socket.on('error', () => undefined);
    const received = await new Promise<Buffer>((resolve) => {
      let got = Buffer.alloc(0);
      socket.on('data', (d: Buffer) => {
        got = Buffer.concat([got, d]);
        // 'N', then the server's first message: 'R' (AuthenticationSASL: the request reached it intact).
        if (got.length >= 6) resolve(got);
      });
      // The answered request must not be relayed again once the rest of the startup arrives.
      const startup = startupMessage(server.user, server.database);
      socket.on('connect', () => {
        socket.write(Buffer.concat([ssl, startup.subarray(0, 3)]));
        setTimeout(() => socket.write(startup.subarray(3)), 50);
      });
    });
    socket.destroy();
    await w.stop();
    expect(String.fromCharCode(received[0]!)).toBe('N');
    expect(String.fromCharCode(received[1]!)).toBe('R');
    expect(received.readInt32BE(6)).toBe(10);
  });

  test('a client that never sends its startup packet is closed after the bound', async () => {
    const w = await startWatch({ upstream: server.url(), startupTimeoutMs: 300 });
    const { ms } = await rawClient(w, []);
    const report = await w.stop();
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(5_000);
    expect(report.warnings.join('\n')).toContain('no StartupMessage within 300 ms');
  });

  test('an upstream where nothing listens: the watch does not start (TARGET_REFUSED)', async () => {
    const port = await deadPort();
    await expect(
      startWatch({ upstream: `postgres://u@127.0.0.1:${port}/d?sslmode=disable`, connectTimeoutMs: 2_000 }),
    ).rejects.toMatchObject({ code: 'TARGET_REFUSED', message: expect.stringContaining(`upstream 127.0.0.1:${port}`) });
  });

  test('an upstream gone after the start: the client gets an ErrorResponse saying so, not a hang', async () => {
    // Listening while the watch starts (its reachability check), gone when the client comes.
    const listener = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as net.AddressInfo).port;
    const w = await startWatch({
      upstream: `postgres://u@127.0.0.1:${port}/d?sslmode=disable`,
      connectTimeoutMs: 2_000,
    });
    await new Promise((resolve) => listener.close(resolve));
    const client = new pg.Client({
      host: w.host,
      port: w.port,
      user: 'u',
      database: 'd',
      connectionTimeoutMillis: 5_000,
    });
    client.on('error', () => undefined);
    await expect(client.connect()).rejects.toThrow(/pooltest watch could not reach the upstream/);
    const report = await w.stop();
    expect(report.warnings.join('\n')).toContain(`upstream 127.0.0.1:${port}: connection refused`);
    expect(report.summary).toMatchObject({ connections: 1, unanswered: 1 });
  });
});
