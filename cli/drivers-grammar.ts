/**
 * `pooltest drivers`' grammar (common/command-grammar.ts): the shared connection words, outputs
 * and switches, and its own options. Its profiles are its own (drivers/profiles.ts): expected
 * outcomes per driver scenario, known for two of the checks' profile names only.
 */
import type { CommandGrammar } from '../common/command-grammar.js';
import { DRIVER_OUTCOMES } from '../drivers/judge.js';
import { DRIVER_PROFILES } from '../drivers/profiles.js';
import { DRIVER_SCENARIOS } from '../drivers/tags.js';

const DRIVER_PROFILE_NAMES = Object.keys(DRIVER_PROFILES);

export const DRIVERS_GRAMMAR: CommandGrammar = {
  command: 'drivers',
  synopsis: [
    'pooltest drivers [--target T | -h HOST -p PORT | --stack NAME] [-U USER] [-d DB] [--driver a,b]',
    '                 [--scenario a,b]',
    '                 [--profile NAME | --expect FILE] [--strict] [--direct T] [--server-log FILE]',
    '                 [--json FILE] [--junit FILE] [--markdown FILE] [--html FILE] [--timeout T]',
  ],
  about: `Runs real drivers through the target, each in its default configuration and in the one its
documentation advises for transaction pooling, and reports per scenario: moved (the driver's
statement was prepared on one backend, its next use runs on another), collision (another
process of the same driver lands on that backend and prepares the same name), cursor (a
server-side cursor with a fetch size), batch (the driver's own batch or pipeline call, sent
several times while other clients compete for the pool), migration (a framework's own
migration, its advisory lock's release kept off the lock's backend). Frameworks (activerecord,
django, sqlalchemy) are in the same list and run their own code path. Outcomes: works, retried
(only because the driver retried after a server error), failed, stalled (a batch got no answer
within the bound), split (one transaction's batch ran on several backends), or inconclusive
when the landing was not proven.`,
  shared: {
    target: true,
    host: true,
    port: true,
    user: true,
    database: true,
    password: true,
    direct:
      "the PostgreSQL behind the target: pooltest's own questions (is another run active?) go there instead of through the pooler",
    json: true,
    junit: true,
    markdown: true,
    html: 'write a page with a sequence diagram per driver scenario',
    profile: `expected driver outcomes, for ${DRIVER_PROFILE_NAMES.join(' or ')} only (pgbouncer-transaction: PgBouncer 1.18, transaction mode, observed). The checks' other profiles (pooltest --list-profiles) say nothing about drivers: give your own with --expect`,
    timeout: true,
    quiet: 'print no line per result while the drivers run',
    'no-store': 'accepted for one command line with pooltest: drivers keeps no copy of its runs anyway',
    'no-color': true,
    color: true,
    help: true,
    version: true,
  },
  own: {
    stack: {
      section: 'What to run',
      type: 'string',
      value: 'NAME',
      help: 'start a throwaway fixture stack instead of --target (direct, pgbouncer-transaction, pgbouncer-session, ...)',
    },
    driver: {
      section: 'What to run',
      type: 'string',
      value: 'a,b',
      help: 'only these drivers (default: all; --list shows them)',
    },
    scenario: {
      section: 'What to run',
      type: 'string',
      value: 'a,b',
      help: `only these scenarios: ${DRIVER_SCENARIOS.join(', ')} (default: all)`,
    },
    list: { section: 'What to run', type: 'boolean', help: 'list the drivers and their configurations' },
    expect: {
      section: 'What to run',
      type: 'string',
      value: 'FILE',
      help: `JSON {"asyncpg/moved@default": "failed", ...} (over the profile's; outcomes ${Object.keys(DRIVER_OUTCOMES).join(', ')}): missed expectations exit 1`,
    },
    strict: { section: 'What to run', type: 'boolean', help: 'an inconclusive result exits 1 too' },
    'server-log': {
      section: 'What to run',
      type: 'string',
      value: 'FILE',
      help: "that PostgreSQL's log (stderr format, log_line_prefix '%m [%p] ...'): errors a driver retried without telling the application are read there and make its result `retried` (--stack reads the fixture's own log)",
    },
  },
  sections: ['Connection', 'What to run', 'Output', 'General'],
  placeOf: { profile: 'What to run' },
  notes: `A driver whose runtime or package is missing is skipped with the reason.

Exit codes: 0 done (no expectation missed), 1 a result missed its expectation (or, with
--strict, something was inconclusive), 2 pooltest could not run, 130 interrupted (SIGINT or
SIGTERM; 129 SIGHUP, 131 SIGQUIT): no report is written.`,
  noStdout: null,
  bareTimeout: 'unit',
  stray: (arg) => `unexpected argument "${arg}": give the target with --target or -h/-p (see pooltest drivers --help)`,
};
