// A repository layer that names its statements, as node-postgres recommends for hot queries:
// `{ name, text, values }` is parsed once per connection and bound on every later call.
import pg from 'pg';

const pool = new pg.Pool({ max: 1, application_name: 'repository', connectionTimeoutMillis: 10_000 });
pool.on('error', () => undefined);
const findUser = (id) =>
  pool.query({ name: 'find-user', text: 'SELECT $1::int AS id, $2::text AS name', values: [id, `user ${id}`] });
for (let i = 0; i < 5; i++) await findUser(i);
await pool.end();
console.log('looked up 5 users');
