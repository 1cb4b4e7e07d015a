// A LISTEN-based job queue as small libraries build one with node-postgres: the worker LISTENs
// once on its own connection, producers INSERT a job and NOTIFY, and the worker claims jobs with
// FOR UPDATE SKIP LOCKED when a notification arrives. Connects with the PG* variables.
import pg from 'pg';

const JOBS = Number(process.argv[2] ?? 5);
const connect = async (name) => {
  const c = new pg.Client({ application_name: name, connectionTimeoutMillis: 10_000 });
  c.on('error', () => undefined);
  await c.connect();
  return c;
};
const setup = await connect('queue-setup');
await setup.query(
  'CREATE TABLE IF NOT EXISTS queue_jobs (id serial PRIMARY KEY, payload text, done boolean DEFAULT false)',
);
await setup.end();

const worker = await connect('queue-worker');
let done = 0;
const finished = new Promise((resolve) => {
  worker.on('notification', async () => {
    await worker.query('BEGIN');
    const r = await worker.query('SELECT id FROM queue_jobs WHERE NOT done ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED');
    if (r.rows[0]) await worker.query('UPDATE queue_jobs SET done = true WHERE id = $1', [r.rows[0].id]);
    await worker.query('COMMIT');
    if (++done === JOBS) resolve();
  });
});
await worker.query('LISTEN queue_jobs');
const producer = await connect('queue-producer');
for (let i = 0; i < JOBS; i++) {
  await producer.query('INSERT INTO queue_jobs (payload) VALUES ($1)', [`job ${i}`]);
  await producer.query("SELECT pg_notify('queue_jobs', $1)", [String(i)]);
}
const timer = setTimeout(() => {
  console.error('timed out waiting for jobs');
  process.exit(4);
}, 15_000);
await finished;
clearTimeout(timer);
await producer.end();
await worker.end();
console.log(`processed ${done} jobs`);
