/**
 * The raw protocol-version probe behind `protocol/negotiation` (issue 38, part 1), against
 * real peers: PostgreSQL 15 (negotiates 3.2 and the grease down to 3.0), PostgreSQL 18 (serves
 * 3.2, proven by its long cancel key and a cancel with it that stops pg_sleep), and loopback
 * servers that refuse, drop, reset, answer malformed bytes or never answer. The last four are
 * the controls: each must end in its own label within the bound, never a hang.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { probeNegotiation } from '../../engine/session/negotiation-probe.js';
import { GREASE_OPTION, PROTOCOL_3_2, PROTOCOL_GREASE, type RawEndpoint } from '../../engine/session/raw-startup.js';
import { startMisbehavingServer } from '../../fixtures/misbehaving-server.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';

const BOUND_MS = 5_000;
const GREASE = { [GREASE_OPTION]: 'true' };

const endpoint = (f: PostgresFixture): RawEndpoint => ({
  host: f.host,
  port: f.port,
  user: f.user,
  database: f.database,
  password: f.password,
});

describe.each([15, 18] as const)('PostgreSQL %i direct', (major) => {
  let pg: PostgresFixture;
  beforeAll(async () => {
    pg = await startPostgres(major === 18 ? { version: 18 } : {});
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
  });

  test('a 3.2 client', async () => {
    const facts = await probeNegotiation(endpoint(pg), PROTOCOL_3_2, {}, BOUND_MS);
    if (pg.version >= 18) {
      expect(facts, facts.why).toMatchObject({ label: 'served' });
      expect(facts.keyBytes).toBeGreaterThan(4);
    } else {
      expect(facts, facts.why).toMatchObject({ label: 'negotiated', keyBytes: 4 });
      expect(facts.seen[0]).toBe('v');
    }
  });

  test('a greasing client (3.9999 and an unknown _pq_ option)', async () => {
    const facts = await probeNegotiation(endpoint(pg), PROTOCOL_GREASE, GREASE, BOUND_MS);
    expect(facts, facts.why).toMatchObject({ label: 'negotiated', asked: '3.9999' });
    expect(facts.why).toMatch(/NegotiateProtocolVersion down to 3\.[02]/);
  });

  test('control: a wrong password is refused with its SQLSTATE, not negotiated', async () => {
    const facts = await probeNegotiation({ ...endpoint(pg), password: 'wrong' }, PROTOCOL_3_2, {}, BOUND_MS);
    expect(facts).toMatchObject({ label: 'refused', error: { code: '28P01' } });
  });
});

/** A loopback peer that does `onConnect` with every client, for the hostile controls. */
async function peer(onConnect: (s: net.Socket) => void): Promise<{ ep: RawEndpoint; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    onConnect(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    ep: { host: '127.0.0.1', port, user: 'u', database: 'd' },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe('hostile peers: every ending in bounded time', () => {
  test('an ErrorResponse (PgBouncer 1.18 style) is refused, kept verbatim', async () => {
    const p = await peer((s) =>
      s.once('data', () => s.end(Buffer.from('E\0\0\0\x2dSFATAL\0VFATAL\0C08P01\0Mbad packet header\0\0', 'latin1'))),
    );
    try {
      const facts = await probeNegotiation(p.ep, PROTOCOL_3_2, {}, BOUND_MS);
      expect(facts).toMatchObject({
        label: 'refused',
        error: { severity: 'FATAL', code: '08P01', message: 'bad packet header' },
      });
    } finally {
      await p.close();
    }
  });

  test('control: the same ErrorResponse cut short by a close is malformed, not a drop', async () => {
    const p = await peer((s) => s.once('data', () => s.end(Buffer.from('E\0\0\0\x2dSFATAL\0VFATAL\0C08', 'latin1'))));
    try {
      const facts = await probeNegotiation(p.ep, PROTOCOL_3_2, {}, BOUND_MS);
      expect(facts, facts.why).toMatchObject({
        label: 'malformed',
        violation: { hex: expect.stringMatching(/^45 00/) },
      });
    } finally {
      await p.close();
    }
  });

  test('a pre-3.0 ErrorResponse (pgagroal 1.6.0 style) is refused, its text kept, as libpq reads it', async () => {
    // pgagroal_write_connection_refused_old: 'E', "connection refused", NUL, padding to 20 bytes.
    const p = await peer((s) => s.once('data', () => s.end(Buffer.from('Econnection refused\0\0', 'latin1'))));
    try {
      const facts = await probeNegotiation(p.ep, PROTOCOL_3_2, {}, BOUND_MS);
      expect(facts, facts.why).toMatchObject({
        label: 'refused',
        error: { message: 'connection refused' },
        why: expect.stringContaining('pre-3.0 ErrorResponse'),
      });
    } finally {
      await p.close();
    }
  });

  test('control: the same pre-3.0 error closed before its NUL is malformed, with its bytes', async () => {
    const p = await peer((s) => s.once('data', () => s.end(Buffer.from('Econnection ref', 'latin1'))));
    try {
      const facts = await probeNegotiation(p.ep, PROTOCOL_3_2, {}, BOUND_MS);
      expect(facts, facts.why).toMatchObject({
        label: 'malformed',
        violation: { hex: expect.stringMatching(/^45 63 6f/) },
      });
    } finally {
      await p.close();
    }
  });

  test('control: a protocol 3 ErrorResponse sent a byte at a time is still read as one', async () => {
    const bytes = Buffer.from('E\0\0\0\x2dSFATAL\0VFATAL\0C08P01\0Mbad packet header\0\0', 'latin1');
    const p = await peer((s) =>
      s.once('data', async () => {
        for (const b of bytes) {
          s.write(Buffer.from([b]));
          await new Promise((r) => setTimeout(r, 2));
        }
        s.end();
      }),
    );
    try {
      const facts = await probeNegotiation(p.ep, PROTOCOL_3_2, {}, BOUND_MS);
      expect(facts, facts.why).toMatchObject({ label: 'refused', error: { code: '08P01' } });
    } finally {
      await p.close();
    }
  });

  test('a reset without a word (Odyssey 1.5.1 style) is dropped', async () => {
    const p = await peer((s) => s.once('data', () => s.resetAndDestroy()));
    try {
      const facts = await probeNegotiation(p.ep, PROTOCOL_GREASE, GREASE, BOUND_MS);
      expect(facts).toMatchObject({ label: 'dropped', why: expect.stringMatching(/reset|closed/) });
    } finally {
      await p.close();
    }
  });

  test('a close with nothing is dropped', async () => {
    const p = await peer((s) => s.once('data', () => s.end()));
    try {
      const facts = await probeNegotiation(p.ep, PROTOCOL_3_2, {}, BOUND_MS);
      expect(facts).toMatchObject({ label: 'dropped', seen: [] });
    } finally {
      await p.close();
    }
  });

  test('a peer that never answers the startup: inconclusive, with the wait stated, within the bound', async () => {
    const p = await peer(() => {});
    try {
      const started = Date.now();
      const facts = await probeNegotiation(p.ep, PROTOCOL_3_2, {}, 800);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(facts).toMatchObject({ label: 'inconclusive', why: expect.stringMatching(/within \d+ ms/) });
    } finally {
      await p.close();
    }
  });

  test.each(['length-short', 'unknown-type', 'garbage'] as const)(
    'the misbehaving server answering the 3.2 startup with %s: malformed, with PROTOCOL_VIOLATION evidence',
    async (fault) => {
      const server = await startMisbehavingServer({ fault, at: 'startup' });
      try {
        const started = Date.now();
        const facts = await probeNegotiation(
          { host: server.host, port: server.port, user: 'u', database: 'd' },
          PROTOCOL_3_2,
          {},
          BOUND_MS,
        );
        expect(server.fired).toBe(true);
        expect(Date.now() - started).toBeLessThan(BOUND_MS + 1_000);
        expect(facts, facts.why).toMatchObject({ label: 'malformed', violation: { hex: expect.any(String) } });
      } finally {
        await server.close();
      }
    },
  );

  test('control: the same misbehaving server without its fault is served at 3.0 sizes, not a finding', async () => {
    // It answers any startup like a 3.0 server (4-byte key, no NegotiateProtocolVersion): the
    // probe must not call that served, nor malformed.
    const server = await startMisbehavingServer({ fault: 'garbage', at: 1_000 });
    try {
      const facts = await probeNegotiation(
        { host: server.host, port: server.port, user: 'u', database: 'd' },
        PROTOCOL_3_2,
        {},
        BOUND_MS,
      );
      expect(facts).toMatchObject({ label: 'inconclusive', why: expect.stringMatching(/not proven to speak 3\.2/) });
    } finally {
      await server.close();
    }
  });
});
