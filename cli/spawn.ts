/**
 * `--spawn NAME`: start a pooler (and the PostgreSQL behind it) in containers, test it, and
 * remove it. testcontainers is not a dependency of the published package: it is large (about
 * 170 packages, some with install scripts) and only this flag needs it, so it is an optional
 * peer the user installs next to pooltest. It is loaded here, on demand, and nowhere else on
 * the CLI's path. Two different failures get two different codes: the package is missing
 * (FIXTURE_UNAVAILABLE, with the install command) or no container engine answers
 * (DOCKER_UNAVAILABLE).
 *
 * Experimental, and labelled so in `--help` and the README: only PgBouncer can be started, its
 * image tag is not pinned to a digest (none could be pulled and verified where this was
 * written: no Docker engine), and no test here runs the catalogue through it. Users who need a
 * reproducible image pin their own with the POOLTEST_SPAWN_*_IMAGE variables.
 */
import { PooltestError } from '../engine/record/errors.js';
import { toolVersion } from '../runner/version.js';

/** What `--spawn` starts: the endpoint to test, the Postgres behind it, and how to stop both. */
export interface Spawned {
  target: string;
  direct: string;
  description: string;
  stop(): Promise<void>;
}

/** Poolers `--spawn` can start today. */
export const SPAWNABLE = ['pgbouncer'] as const;

/** Poolers people will ask for that have no container fixture yet: named so the error can say so. */
const PLANNED = ['pgcat', 'pgdog', 'odyssey', 'supavisor', 'pgpool'];

/** The versions pooltest's container fixtures are tested with (newer ones crash at import on Node 20). */
const TESTCONTAINERS_PACKAGES = ['testcontainers@12.0.1', '@testcontainers/postgresql@12.0.1'];
export const TESTCONTAINERS_INSTALL = `npm install ${TESTCONTAINERS_PACKAGES.join(' ')}`;
/** The same packages for one run, without installing them; pooltest pinned to this version too. */
const testcontainersNpx = (): string =>
  `npx -p pooltest@${toolVersion()} ${TESTCONTAINERS_PACKAGES.map((p) => `-p ${p}`).join(' ')} pooltest --spawn ...`;

/** BAD_ARGUMENTS unless `--spawn` can start `name`; called while parsing, before anything starts. */
export function checkSpawnable(name: string): void {
  if ((SPAWNABLE as readonly string[]).includes(name)) return;
  const why = PLANNED.includes(name) ? `no container fixture for ${name} yet` : `unknown pooler "${name}"`;
  throw new PooltestError(
    'BAD_ARGUMENTS',
    `--spawn: ${why}; available: ${SPAWNABLE.join(', ')}. To test another pooler, start it yourself and pass --target.`,
  );
}

/** Starts `name` in containers; throws a coded error when that cannot happen here. */
export async function spawnPooler(name: string): Promise<Spawned> {
  checkSpawnable(name);
  await requireTestcontainers();
  const { dockerAvailable } = await import('../fixtures/docker.js');
  const docker = await dockerAvailable(5_000);
  if (!docker.available) {
    throw new PooltestError(
      'DOCKER_UNAVAILABLE',
      `--spawn ${name} needs a container engine (Docker or Podman): ${docker.reason}. Start one (or set DOCKER_HOST), or test a pooler you run with --target.`,
    );
  }
  const { startContainerStack, PGBOUNCER_IMAGE } = await import('../fixtures/containers/container-stack.js');
  const { POSTGRES_IMAGE } = await import('../fixtures/containers/postgres-container.js');
  const pgbouncerImage = process.env.POOLTEST_SPAWN_PGBOUNCER_IMAGE || PGBOUNCER_IMAGE;
  const postgresImage = process.env.POOLTEST_SPAWN_POSTGRES_IMAGE || POSTGRES_IMAGE;
  const stack = await startContainerStack({ pgbouncerImage, postgresImage });
  return {
    target: stack.target.url(),
    direct: stack.postgres.url(),
    description: `PgBouncer (${pgbouncerImage}, transaction mode, pool of 2) and PostgreSQL (${postgresImage}) in containers (experimental: images not pinned unless you pin them)`,
    stop: () => stack.stop(),
  };
}

/** Loads the packages the container fixtures use, to tell "not installed" from "no engine". */
async function requireTestcontainers(): Promise<void> {
  for (const load of [() => import('testcontainers'), () => import('@testcontainers/postgresql')]) {
    try {
      await load();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const message = err instanceof Error ? err.message : String(err);
      const missing = code === 'ERR_MODULE_NOT_FOUND' && /testcontainers/.test(message);
      throw new PooltestError(
        'FIXTURE_UNAVAILABLE',
        missing
          ? `--spawn needs testcontainers, which pooltest does not install by default (${message}). Install it next to pooltest: ${TESTCONTAINERS_INSTALL} (or ${testcontainersNpx()})`
          : `testcontainers failed to load (${message}); on Node 20 only 12.0.1 works: ${TESTCONTAINERS_INSTALL}`,
      );
    }
  }
}
