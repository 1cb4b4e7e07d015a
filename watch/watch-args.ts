/**
 * Command-line arguments of `pooltest watch`, read by its grammar (WATCH_GRAMMAR) as every
 * command reads its own. Everything after `--` is the command to run under the watch,
 * untouched (its own flags are never read as ours).
 */
import { PooltestError } from '../engine/record/errors.js';
import { parseDurationWithUnit } from '../engine/record/time.js';
import { parseCommand, stdoutOutput, type CommandGrammar } from '../common/command-grammar.js';
import { renderHelp } from '../common/command-help.js';
import { poolerFromWords } from '../common/pooler-words.js';

/** Everything `pooltest watch` was asked to do. */
export interface WatchArgs {
  upstream?: string;
  listenHost: string;
  listenPort: number;
  report?: string;
  target?: string;
  json?: string;
  markdown?: string;
  html?: string;
  /** The command after `--`; empty: watch until Ctrl-C. */
  command: string[];
  connectTimeoutMs: number;
  /** false for --no-color; undefined lets NO_COLOR / FORCE_COLOR / the terminal decide. */
  color?: boolean;
  /** Without --report/--target, findings that typically break exit 1 instead of 3. */
  failOnFindings: boolean;
  /** psql's `-h -p -U -d --password` for `target` (common/pooler-words.ts). */
  host?: string;
  port?: number;
  user?: string;
  database?: string;
  password?: string;
  /** No status lines on stderr. */
  quiet: boolean;
  help: boolean;
  version: boolean;
}

/** `pooltest watch`'s grammar (common/command-grammar.ts). */
export const WATCH_GRAMMAR: CommandGrammar = {
  command: 'watch',
  synopsis: [
    'pooltest watch --upstream URL [--listen HOST:PORT] [--report FILE | --target URL]',
    '               [--json FILE] [--markdown FILE] [--html FILE] [--fail-on-findings]',
    '               [-- COMMAND...]',
  ],
  about: `Puts a recording proxy in front of PostgreSQL (or a pooler), runs COMMAND with the PG*
variables pointing at it (or watches until Ctrl-C), and reports which statements rely on
session state that an earlier transaction of the same connection left behind: what
transaction pooling takes away.`,
  shared: {
    target: 'the pooler: run the relevant checks against it when the watch ends',
    host: 'host name or Unix socket directory of that pooler; with -p, a --target of its own',
    port: true,
    user: true,
    database: true,
    password: true,
    json: 'write the findings as JSON (format: docs/watch.md)',
    markdown: 'write them as Markdown',
    html: 'write them as one self-contained HTML page',
    timeout: 'bound on each connection (the upstream, and --target): 10s or 2500ms, with its unit (default 10s)',
    quiet: 'print no status lines (where the proxy listens is still said when there is no COMMAND)',
    'no-store': 'accepted for one command line with pooltest: the watch keeps no copy anyway',
    'no-color': 'plain terminal output (NO_COLOR is honoured too)',
    color: true,
    help: true,
    version: true,
  },
  own: {
    upstream: {
      section: 'Watching',
      type: 'string',
      value: 'URL',
      help: "the real PostgreSQL or pooler (postgres:// URL, host:port, or 'host=/var/run/postgresql port=5432' for a Unix socket; PG* fill in)",
    },
    listen: {
      section: 'Watching',
      type: 'string',
      value: 'HOST:PORT',
      help: 'where the proxy listens (default 127.0.0.1 on a free port)',
    },
    'connect-timeout': { section: 'Watching', type: 'string', value: 'T', help: 'the older name of --timeout' },
    report: {
      section: 'Connection',
      type: 'string',
      value: 'FILE',
      help: 'instead of --target: a pooltest JSON report of the pooler you plan to use',
    },
    'fail-on-findings': {
      section: 'Output',
      type: 'boolean',
      help: 'without --report/--target, exit 1 (not 3) when a finding typically breaks',
    },
  },
  sections: ['Watching', 'Connection', 'Output', 'General'],
  groupNotes: {
    Connection:
      'The pooler you plan to use, at most one of --report and --target (or -h/-p); -U, -d and --password refine --target.',
    Output:
      'FILE may be - for standard output (one output at most) when there is no COMMAND, whose own output goes there; the terminal view then goes to stderr.',
  },
  notes: `COMMAND gets PGHOST, PGPORT, PGSSLMODE=disable, PGUSER, PGDATABASE (from the upstream URL),
PGPASSWORD (only when the URL has one; never printed) and DATABASE_URL.

Without COMMAND, Ctrl-C (or SIGTERM) ends the watch and writes the report.

The upstream must accept a connection (TCP, and TLS when its URL asks for it) within the
connect timeout before COMMAND runs; if it does not, the watch stops with its error code
(TARGET_REFUSED when nothing listens) and exit 2, and COMMAND does not run.

Exit codes (the first that applies; 0, 1 and 3 as for pooltest audit):
  COMMAND's own code when it fails (128 + signal when it was killed)
  1  at least one finding breaks on the pooler given (--report or --target), or, with
     --fail-on-findings and no pooler given, a finding typically breaks
  2  some connection got no answer from the upstream (the report covers only the others);
     also when the watch could not run (bad arguments, upstream or --target unreachable)
  3  no pooler given, and findings typically break under transaction pooling: not confirmed
     (give --report or --target for a verdict, or --fail-on-findings to make this 1)
  0  nothing breaks (no finding, or none breaks on the pooler given)`,
  noStdout: null,
  bareTimeout: 'unit',
  stray: (arg) => `unexpected argument "${arg}": put the command to run after --`,
};

/** The watch's help, generated from its grammar. */
export const WATCH_USAGE = renderHelp(WATCH_GRAMMAR);

/** Parses `pooltest watch` arguments (without the word `watch`). */
export function parseWatchArgs(argv: string[]): WatchArgs {
  const line = parseCommand(WATCH_GRAMMAR, argv);
  const s = line.shared;
  const args: WatchArgs = {
    listenHost: '127.0.0.1',
    listenPort: 0,
    command: [],
    connectTimeoutMs: s.timeoutMs ?? 10_000,
    failOnFindings: false,
    quiet: s.quiet,
    help: s.help,
    version: s.version,
  };
  for (const key of ['target', 'host', 'port', 'user', 'database', 'password', 'json', 'markdown', 'html'] as const)
    if (s[key] !== undefined) Object.assign(args, { [key]: s[key] });
  if (s.color !== undefined) args.color = s.color;
  if (line.rest !== null) {
    if (line.rest.length === 0) throw new PooltestError('BAD_ARGUMENTS', '-- must be followed by a command to run');
    args.command = line.rest;
  }
  for (const { name, flag, values } of line.own) {
    const value = values[0]!;
    switch (name) {
      case 'upstream':
        args.upstream = value;
        break;
      case 'listen':
        Object.assign(args, listenAddress(value));
        break;
      case 'report':
        args.report = value;
        break;
      case 'connect-timeout':
        args.connectTimeoutMs = parseDurationWithUnit(value, flag);
        break;
      case 'fail-on-findings':
        args.failOnFindings = true;
        break;
    }
  }
  if (args.help || args.version) return args;
  if (args.upstream === undefined)
    throw new PooltestError(
      'BAD_ARGUMENTS',
      'pooltest watch needs --upstream URL (the PostgreSQL or pooler to put the proxy in front of)',
    );
  poolerFromWords(args);
  if (args.report !== undefined && args.target !== undefined)
    throw new PooltestError('BAD_ARGUMENTS', '--report and --target both say what the pooler does: give one of them');
  const toStdout = stdoutOutput(args);
  if (toStdout !== null && args.command.length > 0)
    throw new PooltestError(
      'BAD_ARGUMENTS',
      `--${toStdout} -: standard output is the command's own (it runs with ours); give a file, or watch without a command`,
    );
  return args;
}

function listenAddress(text: string): { listenHost: string; listenPort: number } {
  const colon = text.lastIndexOf(':');
  const host = colon === -1 ? '127.0.0.1' : text.slice(0, colon).replace(/^\[|\]$/g, '');
  const port = Number(colon === -1 ? text : text.slice(colon + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new PooltestError('BAD_ARGUMENTS', `--listen must be HOST:PORT or PORT, not "${text}"`);
  return { listenHost: host === '' ? '127.0.0.1' : host, listenPort: port };
}
