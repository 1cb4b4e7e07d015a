/**
 * The main command's grammar (common/command-grammar.ts) and the list of subcommands its help
 * names. Every shared option applies here; the rest are the run's own.
 */
import type { CommandGrammar } from '../common/command-grammar.js';

/** Every subcommand, with what it is for: the main help lists them all from here. */
export const SUBCOMMANDS: readonly { name: string; usage: string; summary: string }[] = [
  { name: 'diff', usage: 'OLD.json NEW.json', summary: 'what changes for the application between two reports' },
  { name: 'matrix', usage: '[NAME=]REPORT.json...', summary: 'one compatibility matrix of several reports' },
  {
    name: 'audit',
    usage: '--sql FILE... | --log FILE...',
    summary: "an application's statements that rely on session state",
  },
  {
    name: 'watch',
    usage: '--upstream URL [-- COMMAND...]',
    summary: 'a recording proxy: what a running application relies on',
  },
  { name: 'drivers', usage: '[--target T]', summary: 'real drivers (asyncpg, pgjdbc, ...) through the pooler' },
];

const SUBCOMMAND_LINES = SUBCOMMANDS.map((c) => `  ${c.name.padEnd(9)}${c.summary} (pooltest ${c.name} --help)`).join(
  '\n',
);

export const MAIN_GRAMMAR: CommandGrammar = {
  command: '',
  synopsis: [
    'pooltest [--target HOST:PORT | postgres://... | -h HOST -p PORT -U USER -d DB] [options]',
    ...SUBCOMMANDS.map((c) => `pooltest ${c.name} ${c.usage}   (see pooltest ${c.name} --help)`),
  ],
  about: `Tells what a PostgreSQL connection pooler does to session state. Without --target, starts a
throwaway PostgreSQL and PgBouncer (transaction mode, pool of 2) and tests that.

Commands:
${SUBCOMMAND_LINES}`,
  shared: {
    target: true,
    host: 'host name or Unix socket directory (PGHOST; host=%2Ftmp in a URL)',
    port: true,
    user: true,
    database: true,
    password:
      "(or PGPASSWORD, or in the URL). On a machine others log in to, set PGPASSWORD instead: any user can read a password given in --password or a URL from the process list (ps), while a process's environment is readable only by its own user and root. With none given, the line for the target in ~/.pgpass (or PGPASSFILE), as libpq reads it",
    direct: 'the PostgreSQL behind the pooler (baseline and leftover sweep)',
    profile: "assert a pooler's documented behaviour (see --list-profiles)",
    json: 'write the JSON report (schema/report.schema.json)',
    junit: true,
    markdown: 'write a Markdown table for a pull request or a docs page',
    html: 'write a self-contained HTML report with sequence diagrams',
    'no-store': 'keep no copy under .pooltest/runs/<time>/ (kept by default)',
    quiet: 'print failures and the summary',
    'no-color': true,
    color: true,
    timeout: 'bound for every connection and step: 10s (default), 2500ms, or seconds',
    help: true,
    version: true,
  },
  own: {
    spawn: {
      section: 'Connection',
      type: 'string',
      value: 'NAME',
      help: "EXPERIMENTAL: start NAME in containers and test it (needs Docker and testcontainers; NAME: pgbouncer). What it lacks: only PgBouncer; the image (edoburu/pgbouncer:latest, postgres:16) is not pinned to a digest (pin your own with POOLTEST_SPAWN_PGBOUNCER_IMAGE / _POSTGRES_IMAGE); pooltest's own tests have never run the catalogue through it",
    },
    expect: {
      section: 'What to run and assert',
      type: 'string',
      value: 'FILE',
      help: 'assert your own expectations (JSON; may extend a profile)',
    },
    compare: {
      section: 'What to run and assert',
      type: 'string',
      value: 'T',
      help: "also run against T (the baseline, e.g. direct Postgres or today's pooler) and report what changes for the application going to --target",
    },
    strict: {
      section: 'What to run and assert',
      type: 'boolean',
      help: 'fail (exit 1) when a check is inconclusive, the sweep could not finish, or every check was skipped; JUnit then reports inconclusive checks as failures',
    },
    'fail-on-breaks': {
      section: 'What to run and assert',
      type: 'boolean',
      help: 'fail (exit 1) when an outcome breaks an application written for a direct connection, expected by a profile or not; JUnit then reports each such check as a failure (without it, as a passed testcase)',
    },
    'run-wedging': {
      section: 'What to run and assert',
      type: 'boolean',
      help: 'also run the checks known to leave the identified pooler unusable until it restarts (pgagroal 1.6 in transaction mode: the pipeline checks); without it they are skipped with the reason',
    },
    only: {
      section: 'What to run and assert',
      type: 'string',
      value: 'IDS',
      help: 'check ids or areas, comma separated (e.g. session/set-leak,locks); may be repeated',
    },
    skip: { section: 'What to run and assert', type: 'string', value: 'IDS', help: 'the same, to leave out' },
    list: {
      section: 'What to run and assert',
      type: 'boolean',
      help: 'print the catalogue of checks with the outcome labels of each (with --json FILE: the same as JSON)',
    },
    'list-profiles': {
      section: 'What to run and assert',
      type: 'boolean',
      help: 'print the built-in profiles, or the one named after it (--list-profiles NAME)',
    },
    drivers: {
      section: 'What to run and assert',
      type: 'boolean',
      help: 'also run the real drivers through the target (see pooltest drivers --help); the JSON report gains a "drivers" section',
    },
    'max-pool': {
      section: 'General',
      type: 'string',
      value: 'N',
      help: 'most backends to count while steering (default 8)',
    },
    verbose: { section: 'General', type: 'boolean', short: 'v', help: 'print every recorded step' },
  },
  sections: ['Connection', 'What to run and assert', 'Output', 'General'],
  placeOf: { profile: 'What to run and assert' },
  notes: `Verdicts: pass / fail against an expectation (--profile, --expect); observed when nothing
was expected (the outcome is shown with whether it breaks an application); inconclusive when
pooltest could not force or prove the situation; skipped when the check cannot run here.

Exit codes:
  0    every asserted check as expected, or nothing asserted, and the sweep found nothing
       left behind (inconclusive checks, and a sweep that could not finish, change it only
       under --strict)
  1    a check failed its expectation, the run left state behind, (with --compare) something
       breaks, (with --fail-on-breaks) an outcome breaks an application, or (with --strict)
       a check was inconclusive, the sweep could not finish or every check was skipped
  2    pooltest could not run (bad arguments, target unreachable, authentication, ...)
  130  interrupted by SIGINT or SIGTERM (after cleanup: the check stops, the sweep runs)
  129  the same after SIGHUP (a dropped SSH session), 131 after SIGQUIT`,
  noStdout: null,
  bareTimeout: 'seconds',
  // Only `--list-profiles NAME` takes one; parseCli refuses the others with the reason.
  stray: () => null,
};
