// An application that runs through an upstream outage without failing: one connection works,
// then (once the test has had its say, through files in SIGNAL_DIR) a second one is tried and
// its failure swallowed, as a retrying job runner or a health check would. Exit code 0 either
// way: only the watch can say that the second connection was never seen.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

const dir = process.env.SIGNAL_DIR;
const once = async () => {
  const c = new pg.Client({ connectionTimeoutMillis: 10_000 });
  c.on('error', () => undefined);
  await c.connect();
  await c.query("SELECT set_config('app.step', 'one', true)");
  await c.end();
};
await once();
writeFileSync(path.join(dir, 'first-done'), '');
const deadline = Date.now() + 30_000;
while (!existsSync(path.join(dir, 'go-on')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
try {
  await once();
  console.log('second connection worked');
} catch (error) {
  console.log(`second connection failed: ${error.message}`);
}
