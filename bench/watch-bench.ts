/**
 * Benchmark of `pooltest watch`: what the recording proxy costs an application. Starts a real
 * PostgreSQL, runs `pooltest watch --upstream URL` as its own process (as users run it, so its
 * CPU and memory are its own), and measures:
 *
 * 1. added latency: the median of sequential `SELECT 1` round trips through the proxy minus
 *    the median direct, interleaved in blocks so drift on a shared machine hits both alike;
 * 2. throughput: statements per second through the proxy with many clients, and the proxy's
 *    own capacity (statements per CPU-second of the proxy process), which is what bounds it
 *    once PostgreSQL and the clients are not on the same two cores;
 * 3. memory: the proxy's RSS sampled during a long run with a share of never-repeated texts,
 *    early and late; equal figures mean memory does not grow with the traffic.
 *
 *   npm run build && node dist/bench/watch-bench.js [--round-trips 5000] [--seconds 5] [--long 200000]
 *
 * 4. with `node --expose-gc dist/bench/watch-bench.js --heap 400000`: the watch in-process
 *    instead, printing the JavaScript heap after a full GC every 100,000 statements (RSS mixes
 *    in the WebAssembly parser's memory, which is allocated once and stays).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startPostgres, type PostgresFixture } from '../fixtures/postgres-fixture.js';
import { startWatch } from '../watch/watch.js';

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

async function client(server: PostgresFixture, port: number): Promise<pg.Client> {
  const c = new pg.Client({
    host: '127.0.0.1',
    port,
    user: server.user,
    password: server.password,
    database: server.database,
    ssl: false,
  });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

/** Starts the watch as a child process and resolves with its port once it listens. */
function startWatchProcess(url: string): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'watch', '--upstream', url, '--no-color'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /proxy on 127\.0\.0\.1:(\d+)/.exec(err);
      if (m) resolve({ child, port: Number(m[1]), output: () => out + err });
    });
    child.once('exit', (code) => reject(new Error(`watch exited early (${code}): ${err}`)));
    setTimeout(() => reject(new Error(`watch did not start: ${err}`)), 20_000).unref();
  });
}

/** utime+stime of a process in seconds, and its current and peak RSS in MB (Linux /proc). */
function procStats(pid: number): { cpu: number; rssMb: number; hwmMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { cpu: ticks / 100, rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function roundTrips(c: pg.Client, n: number, into: number[]): Promise<void> {
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await c.query('SELECT 1');
    into.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
}

/** `clients` connections each running statements for `seconds`; a share of texts are unique. */
async function load(
  server: PostgresFixture,
  port: number,
  clients: number,
  until: (done: number) => boolean,
  unique = 0.1,
): Promise<number> {
  let done = 0;
  let n = 0;
  const conns = await Promise.all(Array.from({ length: clients }, () => client(server, port)));
  await Promise.all(
    conns.map(async (c) => {
      while (!until(done)) {
        const i = n++;
        // Mostly repeated driver texts; every tenth is new to the parser cache.
        const sql =
          i % Math.round(1 / unique) === 0
            ? `SELECT ${i} AS unique_${i % 1000}`
            : i % 3 === 0
              ? "SELECT set_config('app.tenant_id', '1', true)"
              : 'SELECT 1';
        await c.query(sql);
        done++;
      }
    }),
  );
  await Promise.all(conns.map((c) => c.end()));
  return done;
}

/** Phase 4: the heap after GC, every 100,000 statements, with the watch in this process. */
async function heapPhase(total: number): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('--heap needs node --expose-gc');
  const server = await startPostgres();
  const watching = await startWatch({ upstream: server.url() });
  try {
    let next = 100_000;
    await load(server, watching.port, 16, (done) => {
      if (done >= next) {
        next += 100_000;
        gc();
        const m = process.memoryUsage();
        console.log(
          `heap: ${done} statements: heapUsed ${(m.heapUsed / 1048576).toFixed(1)} MB, external (WebAssembly) ${(m.external / 1048576).toFixed(1)} MB, rss ${(m.rss / 1048576).toFixed(1)} MB`,
        );
      }
      return done >= total;
    });
  } finally {
    await watching.stop();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const heap = arg('heap', 0);
  if (heap > 0) return heapPhase(heap);
  const trips = arg('round-trips', 5000);
  const seconds = arg('seconds', 5);
  const long = arg('long', 200_000);
  const server = await startPostgres();
  const watch = await startWatchProcess(server.url());
  try {
    // 1. Latency, interleaved in blocks of 500.
    const direct = await client(server, server.port);
    const proxied = await client(server, watch.port);
    await roundTrips(direct, 200, []);
    await roundTrips(proxied, 200, []);
    const d: number[] = [];
    const p: number[] = [];
    for (let done = 0; done < trips; done += 500) {
      await roundTrips(direct, 500, d);
      await roundTrips(proxied, 500, p);
    }
    await direct.end();
    await proxied.end();
    const added = median(p) - median(d);
    console.log(
      `latency: ${trips} SELECT 1 round trips each way: median direct ${median(d).toFixed(3)} ms, through the proxy ${median(p).toFixed(3)} ms, added ${(added * 1000).toFixed(0)} us`,
    );

    // 2. Throughput with 16 clients for `seconds`, direct and through the proxy.
    for (const [label, port] of [
      ['direct', server.port],
      ['proxy', watch.port],
    ] as const) {
      const cpuBefore = procStats(watch.child.pid!).cpu;
      const started = Date.now();
      const n = await load(server, port, 16, () => Date.now() - started > seconds * 1000);
      const elapsed = (Date.now() - started) / 1000;
      const cpu = procStats(watch.child.pid!).cpu - cpuBefore;
      const capacity =
        label === 'proxy' && cpu > 0
          ? `; the proxy used ${cpu.toFixed(2)} CPU-s: ${Math.round(n / cpu)} statements per proxy CPU-second`
          : '';
      console.log(
        `throughput ${label}: ${n} statements in ${elapsed.toFixed(1)} s = ${Math.round(n / elapsed)} statements/s${capacity}`,
      );
    }

    // 3. Memory over a long run.
    const samples: { at: number; rss: number }[] = [];
    const sampler = setInterval(() => samples.push({ at: Date.now(), rss: procStats(watch.child.pid!).rssMb }), 250);
    const started = Date.now();
    const n = await load(server, watch.port, 16, (done) => done >= long);
    clearInterval(sampler);
    const quarter = samples.slice(0, Math.max(1, Math.floor(samples.length / 4)));
    const last = samples.slice(-Math.max(1, Math.floor(samples.length / 4)));
    const peak = (s: typeof samples): number => Math.max(...s.map((x) => x.rss));
    console.log(
      `memory: ${n} statements (10% unique texts) in ${((Date.now() - started) / 1000).toFixed(1)} s: proxy RSS peak ${peak(quarter).toFixed(1)} MB in the first quarter, ${peak(last).toFixed(1)} MB in the last; VmHWM ${procStats(watch.child.pid!).hwmMb.toFixed(1)} MB`,
    );
  } finally {
    watch.child.kill('SIGINT');
    await new Promise((resolve) => watch.child.once('exit', resolve));
    const summary = /\d+ connection\(s\), \d+ transaction\(s\), \d+ statement\(s\)/.exec(watch.output());
    console.log(`watch report: ${summary?.[0] ?? '(no summary line)'}`);
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
