// A bare pg.Client against the misbehaving server, in its own process so that a client
// spinning in pg-protocol's parser (which no timer can interrupt) can be killed from outside.
// argv[2]: JSON { fault, at, lateMs, guard, tls? { cert, key } }. Prints one JSON line: how the client ended.
import pg from 'pg';
import { startMisbehavingServer } from '../../dist/fixtures/misbehaving-server.js';
import { guardClient } from '../../dist/engine/wire/pg-guard.js';

const opts = JSON.parse(process.argv[2]);
const server = await startMisbehavingServer({ fault: opts.fault, at: opts.at, lateMs: opts.lateMs, tls: opts.tls });
const client = new pg.Client({
  host: '127.0.0.1',
  port: server.port,
  user: 'u',
  database: 'd',
  connectionTimeoutMillis: 2000,
  ssl: opts.tls ? { rejectUnauthorized: false } : false,
});
client.on('error', () => undefined);
if (opts.guard) guardClient(client);
const t0 = performance.now();
let result;
try {
  await client.connect();
  const r = await client.query('SELECT pg_backend_pid() AS pid');
  result = { ok: true, rows: r.rows, encrypted: typeof client.connection.stream.getPeerCertificate === 'function' };
} catch (e) {
  result = { ok: false, code: e.code ?? null, message: e.message, violation: e.violation ?? null };
}
result.ms = Math.round(performance.now() - t0);
process.stdout.write(`${JSON.stringify(result)}\n`);
await client.end().catch(() => undefined);
await server.close();
