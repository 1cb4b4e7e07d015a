/**
 * Cost of the wire guard, which sees every backend byte of every run:
 * 1. the frame reader alone: MB/s and messages/s validating a backend stream of small result
 *    messages (RowDescription, DataRows, CommandComplete, ReadyForQuery) in 64 KiB chunks,
 *    and in chunks cut mid-message (the split path, which buffers what it must check);
 * 2. end to end: the same number of `SELECT pg_backend_pid()` round trips through pg against
 *    real Postgres, with and without the guard (the difference is the guard's share of a step).
 *
 *   npm run build && node dist/bench/wire-bench.js [--queries 3000]
 */
import pg from 'pg';
import { startPostgres } from '../fixtures/postgres-fixture.js';
import { FrameReader } from '../engine/wire/frame-reader.js';
import { guardClient } from '../engine/wire/pg-guard.js';

const int32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const msg = (type: string, body: Buffer): Buffer => Buffer.concat([Buffer.from(type), int32(body.length + 4), body]);

/** One answer to a query returning 20 rows of two text columns. */
function answer(): Buffer {
  const field = (name: string): Buffer => Buffer.concat([Buffer.from(`${name}\0`), Buffer.alloc(18)]);
  const desc = msg('T', Buffer.concat([Buffer.from([0, 2]), field('id'), field('name')]));
  const row = (i: number): Buffer => {
    const a = Buffer.from(String(i));
    const b = Buffer.from(`name number ${i}`);
    return msg('D', Buffer.concat([Buffer.from([0, 2]), int32(a.length), a, int32(b.length), b]));
  };
  return Buffer.concat([
    desc,
    ...Array.from({ length: 20 }, (_, i) => row(i)),
    msg('C', Buffer.from('SELECT 20\0')),
    msg('Z', Buffer.from('I')),
  ]);
}

function readerBench(): void {
  const one = answer();
  const stream = Buffer.concat(Array.from({ length: Math.ceil((64 * 1024 * 1024) / one.length) }, () => one));
  const messages = 23 * (stream.length / one.length);
  for (const [label, size] of [
    ['64 KiB chunks', 64 * 1024],
    ['1000-byte chunks (cut mid-message)', 1000],
  ] as const) {
    const chunks: Buffer[] = [];
    for (let i = 0; i < stream.length; i += size) chunks.push(stream.subarray(i, i + size));
    const reader = new FrameReader({ direction: 'backend' });
    const t0 = performance.now();
    for (const c of chunks) reader.check(c);
    const s = (performance.now() - t0) / 1000;
    console.log(
      `reader, ${label}: ${(stream.length / 1024 / 1024 / s).toFixed(0)} MB/s, ${(messages / s / 1e6).toFixed(1)} M messages/s (${(stream.length / 1024 / 1024).toFixed(0)} MB)`,
    );
  }
}

async function endToEnd(queries: number): Promise<void> {
  const fixture = await startPostgres();
  try {
    for (const guarded of [false, true, false, true]) {
      const client = new pg.Client({ connectionString: fixture.url() });
      if (guarded) guardClient(client);
      await client.connect();
      const t0 = performance.now();
      for (let i = 0; i < queries; i++) await client.query("SELECT pg_backend_pid() AS pid, repeat('x', 200) AS pad");
      const ms = performance.now() - t0;
      await client.end();
      console.log(
        `pg round trips ${guarded ? 'with   ' : 'without'} the guard: ${((ms * 1000) / queries).toFixed(1)} us per query (${queries} queries)`,
      );
    }
  } finally {
    await fixture.stop();
  }
}

const at = process.argv.indexOf('--queries');
readerBench();
await endToEnd(at > 0 ? Number(process.argv[at + 1]) : 3000);
