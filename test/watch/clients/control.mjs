// The control: an application that keeps all its state inside transactions (SET LOCAL,
// set_config(..., true), transaction-scoped advisory locks, ON COMMIT DROP temp tables,
// unnamed statements). Under the watch it must give no finding.
import pg from 'pg';

const pool = new pg.Pool({ max: 2, application_name: 'control', connectionTimeoutMillis: 10_000 });
pool.on('error', () => undefined);
for (let i = 0; i < 5; i++) {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    await c.query("SELECT set_config('app.tenant_id', $1, true)", [String(i)]);
    await c.query('SET LOCAL statement_timeout = 5000');
    await c.query('SELECT pg_advisory_xact_lock(4242)');
    await c.query('CREATE TEMP TABLE batch (i int) ON COMMIT DROP');
    await c.query('INSERT INTO batch SELECT generate_series(1, $1::int)', [i + 1]);
    await c.query("SELECT count(*), current_setting('app.tenant_id') FROM batch");
    await c.query('COMMIT');
  } finally {
    c.release();
  }
  await pool.query('SELECT $1::int + 1 AS next', [i]);
}
await pool.end();
console.log('control done');
