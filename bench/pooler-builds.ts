/**
 * `npm run bench:poolers`: builds PgBouncer 1.25, Odyssey and pgagroal from their release
 * tarballs (fixtures/pooler-build.ts) and prints how long each took, and whether it came from the
 * cache. Run it twice to see both figures: the first run on a machine compiles (cold), the next
 * finds the cache. `--help` says this.
 */
import { ensurePoolerBuild, buildCacheDir } from '../fixtures/pooler-build.js';
import { poolerSourcesDir, type SourcePooler } from '../fixtures/pooler-sources.js';

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    process.stdout.write(
      'usage: node dist/bench/pooler-builds.js\nBuilds (or finds in the cache) each pooler and prints the time.\n',
    );
    return;
  }
  process.stdout.write(`sources ${poolerSourcesDir()}, cache ${buildCacheDir()}\n`);
  for (const pooler of ['pgbouncer', 'odyssey', 'pgagroal'] as SourcePooler[]) {
    const started = performance.now();
    const build = await ensurePoolerBuild(pooler);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(
      `${pooler} ${build.version}: ${build.builtNow ? 'built' : 'cached'} in ${seconds} s (the cached build took ${build.buildSeconds} s) at ${build.prefix}\n`,
    );
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
