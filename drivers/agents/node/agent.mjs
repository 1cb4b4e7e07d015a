/**
 * A pooltest driver agent for node-postgres (`pg`) and postgres.js (`postgres`), in a process of
 * its own like the other drivers' agents (same line protocol as drivers/agents/python/agent.py):
 * a collision needs two processes, and a driver's process-wide state (postgres.js names its
 * statements from a counter) must not be pooltest's.
 *
 * Usage: node agent.mjs pg|postgres. Options: pg `{ name: "..." }` names the statement (the
 * driver then sends Parse once per connection and only Bind/Execute after); postgres.js takes
 * its own options (`prepare: false`).
 */
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const which = process.argv[2];
const require = createRequire(import.meta.url);
const say = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

const errorOf = (e) => ({
  type: e?.constructor?.name ?? 'Error',
  message: String(e?.message ?? e).split('\n')[0],
  sqlstate: typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : null,
});

/**
 * Builds a tagged-template call for postgres.js from `... $1 ... $2 ...` (each parameter used
 * once, in order): its default path prepares.
 */
function template(sql) {
  const parts = sql.split(/\$\d+/);
  return Object.assign([...parts], { raw: [...parts] });
}

/** The answer of a driver without a batch or pipeline API: pooltest reports the reason. */
class Unsupported extends Error {}

const batchAnswer = (api, step) => ({ runs: [{ api, statements: step.params.length }] });

function pgAgent(pg) {
  let client = null;
  let name = null;
  return {
    async connect(step) {
      name = step.options?.name ?? null;
      client = new pg.Client({ connectionString: step.url, connectionTimeoutMillis: 10000 });
      client.on('error', () => undefined);
      await client.connect();
      return {};
    },
    async query(step, runs) {
      for (let i = 0; i < (step.times ?? 1); i++) {
        if (step.tx) await client.query('BEGIN');
        const q = name ? { name, text: step.sql, values: [step.param] } : { text: step.sql, values: [step.param] };
        runs.push((await client.query(q)).rows[0]);
        if (step.tx) await client.query('COMMIT');
      }
      return { runs };
    },
    batch: async () => {
      throw new Unsupported('node-postgres has no batch or pipeline API: every query waits for the one before');
    },
    begin: async () => (await client.query('BEGIN'), {}),
    commit: async () => (await client.query('COMMIT'), {}),
    rollback: async () => (await client.query('ROLLBACK'), {}),
    pid: async () => ({ pid: (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid }),
    async close() {
      await client?.end();
      client = null;
      return {};
    },
  };
}

function postgresAgent(postgres) {
  let sql = null;
  let tx = null;
  // postgres.js re-prepares and sends a query again after 26000 (FetchPreparedStatement) without
  // telling the application; its `debug` hook sees every send, so a second send is that retry.
  let sends = 0;
  const one = async (s, step, log) => {
    sends = 0;
    const rows = await s(template(step.sql), step.param);
    if (sends > 1) log.push(`postgres.js sent the query ${sends} times: it retried after a server error`);
    return rows;
  };
  return {
    async connect(step) {
      const debug = (_conn, text) => {
        if (text.includes('pooltest-drivers')) sends++;
      };
      sql = postgres(step.url, {
        max: 1,
        connect_timeout: 10,
        onnotice: () => undefined,
        debug,
        ...(step.options ?? {}),
      });
      return {};
    },
    async query(step, runs, log) {
      for (let i = 0; i < (step.times ?? 1); i++) {
        const rows = step.tx ? await sql.begin((s) => one(s, step, log)) : await one(sql, step, log);
        runs.push({ ...rows[0] });
      }
      return { runs };
    },
    async cursor(step, runs, log) {
      sends = 0;
      await sql.begin(async (s) => {
        for await (const batch of s(template(step.sql), step.param).cursor(step.fetch))
          for (const r of batch) runs.push({ ...r });
      });
      if (sends > 1) log.push(`postgres.js sent the query ${sends} times: it retried after a server error`);
      return { runs };
    },
    async batch(step, runs, log) {
      // Queries issued without awaiting are pipelined on the connection (max: 1): each is sent
      // at once, with its own Sync, and the answers are read in order. In a transaction,
      // sql.begin with an array of queries pipelines them the same way between BEGIN and COMMIT.
      sends = 0;
      const issue = (s) => step.params.map((p) => s(template(step.sql), ...p));
      if (step.tx) await sql.begin((s) => issue(s));
      else await Promise.all(issue(sql));
      if (sends > step.params.length)
        log.push(
          `postgres.js sent the batch's ${step.params.length} queries ${sends} times: it retried after a server error`,
        );
      return batchAnswer('pipelined queries', step);
    },
    async begin() {
      // postgres.js has no open-ended BEGIN: a reserved connection stands in for the held transaction.
      tx = await sql.reserve();
      await tx`BEGIN`;
      return {};
    },
    async commit() {
      await tx`COMMIT`;
      tx.release();
      tx = null;
      return {};
    },
    async rollback() {
      await tx`ROLLBACK`;
      tx.release();
      tx = null;
      return {};
    },
    pid: async () => ({ pid: (await sql`SELECT pg_backend_pid() AS pid`)[0].pid }),
    async close() {
      await sql?.end({ timeout: 5 });
      sql = null;
      return {};
    },
  };
}

/** The package's version; postgres.js does not export its package.json, so it is found on disk. */
function versionOf(pkg) {
  let dir = dirname(require.resolve(pkg));
  while (dir !== dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const json = JSON.parse(readFileSync(file, 'utf8'));
      if (json.name === pkg) return json.version;
    }
    dir = dirname(dir);
  }
  return null;
}

let agent;
let version;
try {
  const pkg = which === 'pg' ? 'pg' : which === 'postgres' ? 'postgres' : null;
  if (!pkg) throw new Error(`unknown driver ${which}`);
  const mod = require(pkg);
  version = versionOf(pkg);
  agent = pkg === 'pg' ? pgAgent(mod) : postgresAgent(mod);
} catch (e) {
  say({ ok: false, error: errorOf(e) });
  process.exit(3);
}
say({ ok: true, driver: which, version });

// A driver call blocked on the network reads no stdin: exit as soon as pooltest's process is gone.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(1);
}, 500).unref();

// One step at a time, in order: the next line waits for the answer to this one.
const lines = createInterface({ input: process.stdin });
let chain = Promise.resolve();
lines.on('line', (line) => {
  if (!line.trim()) return;
  chain = chain.then(async () => {
    const step = JSON.parse(line);
    const runs = [];
    const driverLog = [];
    try {
      say({ ok: true, ...(await agent[step.op](step, runs, driverLog)), driverLog });
    } catch (e) {
      say({ ok: false, error: errorOf(e), runs, driverLog });
    }
  });
});
// End of input: pooltest is gone or done. Exit, whatever the driver still holds open.
lines.on('close', () => chain.finally(() => process.exit(0)));
