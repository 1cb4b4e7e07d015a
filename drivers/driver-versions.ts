/**
 * Options that differ between versions of a driver, so that advice names the option of the
 * version the agent reported, never one version's option for another.
 *
 * - pgx: v4 (the agent, built with Debian's pgx 4.15) configures its statement cache with
 *   `statement_cache_capacity`, `statement_cache_mode` and `prefer_simple_protocol`; v5 dropped
 *   those for one `default_query_exec_mode` (`cache_statement` by default, `simple_protocol`,
 *   `cache_describe`, `describe_exec`, `exec`), and names its statements `stmtcache_<hash>`.
 * - PDO pgsql: PHP 8.4 gave the driver its own class, `Pdo\Pgsql`, whose
 *   `Pdo\Pgsql::ATTR_DISABLE_PREPARES` replaces `PDO::PGSQL_ATTR_DISABLE_PREPARES`. Until PHP 8.4
 *   built with libpq 17, PDO frees its statements with SQL `DEALLOCATE pdo_stmt_...`, which a
 *   pooler tracking protocol-level statements (PgBouncer's max_prepared_statements) does not
 *   see (pgbouncer#991, php-src#12940); from then on it sends the protocol's Close.
 */
import type { DriverConfig } from './catalogue.js';

/** `[major, minor]` of the first `N.N` in a version string (`8.2.36 (libpq 15.15)` gives 8.2). */
function majorMinor(version: string | null | undefined): [number, number] | null {
  const m = /(\d+)\.(\d+)/.exec(version ?? '');
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** pgx v5's setting for each v4 configuration. */
const PGX_V5: Record<string, string> = {
  default: 'pgx.Connect(ctx, url) (default_query_exec_mode=cache_statement)',
  'prefer_simple_protocol=true':
    'default_query_exec_mode=simple_protocol in the connection string (ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol)',
  'statement_cache_mode=describe': 'default_query_exec_mode=cache_describe in the connection string',
  'statement_cache_capacity=0': 'default_query_exec_mode=describe_exec in the connection string',
};

/** pgx's option for `config` in `version` (v5 by its major; v4, the agent's, otherwise). */
export function pgxHow(config: DriverConfig, version: string | null): string {
  const v = majorMinor(version);
  if (v !== null && v[0] >= 5) return PGX_V5[config.name] ?? config.how;
  return config.how;
}

/** PHP's version and libpq's from the agent's `8.2.36 (libpq 15.15)`. */
function phpAndLibpq(version: string | null): { php: [number, number] | null; libpq: number | null } {
  const libpq = /libpq (\d+)/.exec(version ?? '');
  return { php: majorMinor(version), libpq: libpq ? Number(libpq[1]) : null };
}

const atLeast = (v: [number, number] | null, major: number, minor: number): boolean =>
  v !== null && (v[0] > major || (v[0] === major && v[1] >= minor));

/** PDO's option for `config` in `version` (the PHP version, with libpq's in parentheses). */
export function pdoHow(config: DriverConfig, version: string | null): string {
  if (config.name === 'PGSQL_ATTR_DISABLE_PREPARES=true' && atLeast(phpAndLibpq(version).php, 8, 4))
    return 'new Pdo\\Pgsql($dsn, $user, $password, [Pdo\\Pgsql::ATTR_DISABLE_PREPARES => true])';
  return config.how;
}

/**
 * The pooler-side fix for PDO's native prepares: only where PDO closes its statements with the
 * protocol (PHP >= 8.4 with libpq >= 17) can the pooler's tracking keep up with them.
 */
export function pdoPoolerFix(version: string | null): string | null {
  const { php, libpq } = phpAndLibpq(version);
  if (atLeast(php, 8, 4) && libpq !== null && libpq >= 17) return null;
  const which = version !== null ? `PDO ${version}` : 'this PDO';
  return `give this client a session-pooled or direct connection: the pooler's prepared statement tracking (PgBouncer max_prepared_statements) does not cover ${which}, which frees statements with SQL DEALLOCATE (PHP >= 8.4 with libpq >= 17 closes them with the protocol, which PgBouncer >= 1.22 tracks)`;
}
