/**
 * Command-line arguments of `pooltest watch`. Everything after `--` is the command to run under
 * the watch, untouched (its own flags are never read as ours).
 */
import { PooltestError } from '../engine/record/errors.js';
import { parseDurationWithUnit } from '../engine/record/time.js';
import { positiveInt, readCommandLine, type OptionSpec } from '../common/command-args.js';

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
  help: boolean;
}

export const WATCH_USAGE = `Usage: pooltest watch --upstream URL [--listen HOST:PORT] [--report FILE | --target URL]
                      [--json FILE] [--markdown FILE] [--html FILE] [-- COMMAND...]

Puts a recording proxy in front of PostgreSQL (or a pooler), runs COMMAND with the PG*
variables pointing at it (or watches until Ctrl-C), and reports which statements rely on
session state that an earlier transaction of the same connection left behind: what
transaction pooling takes away.

  --upstream URL            the real PostgreSQL or pooler (postgres:// URL, host:port, or
                            'host=/var/run/postgresql port=5432' for a Unix socket; PG* fill in)
  --listen HOST:PORT        where the proxy listens (default 127.0.0.1 on a free port)
  --report FILE             a pooltest JSON report of the pooler you plan to use
  --target URL              run the relevant checks against that pooler when the watch ends
  --json FILE               write the findings as JSON (format: docs/watch.md)
  --markdown FILE           write them as Markdown
  --html FILE               write them as one self-contained HTML page
  --connect-timeout T       bound on each upstream connection: 10s or 2500ms (default 10s)
  --no-color                plain terminal output (NO_COLOR is honoured too)

COMMAND gets PGHOST, PGPORT, PGSSLMODE=disable, PGUSER, PGDATABASE (from the upstream URL),
PGPASSWORD (only when the URL has one; never printed) and DATABASE_URL.

Without COMMAND, Ctrl-C (or SIGTERM) ends the watch and writes the report.

The upstream must accept a connection (TCP, and TLS when its URL asks for it) within the
connect timeout before COMMAND runs; if it does not, the watch stops with its error code
(TARGET_REFUSED when nothing listens) and exit 2, and COMMAND does not run.

Exit codes: the command's own code when it fails (128 + signal when it was killed); otherwise
1 when a finding breaks on the pooler given with --report/--target; otherwise 2 when some
connection got no answer from the upstream (the report then covers only the others), else 0;
2 also when the watch could not run.
`;

const WATCH_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  upstream: { type: 'string' },
  listen: { type: 'string' },
  report: { type: 'string' },
  target: { type: 'string' },
  json: { type: 'string' },
  markdown: { type: 'string' },
  html: { type: 'string' },
  'connect-timeout': { type: 'string' },
  'no-color': { type: 'boolean' },
  color: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

/** Parses `pooltest watch` arguments (without the word `watch`). */
export function parseWatchArgs(argv: string[]): WatchArgs {
  const args: WatchArgs = {
    listenHost: '127.0.0.1',
    listenPort: 0,
    command: [],
    connectTimeoutMs: 10_000,
    help: false,
  };
  const line = readCommandLine(
    'watch',
    argv,
    WATCH_OPTIONS,
    (arg) => `unexpected argument "${arg}": put the command to run after --`,
  );
  if (line.rest !== null) {
    if (line.rest.length === 0) throw new PooltestError('BAD_ARGUMENTS', '-- must be followed by a command to run');
    args.command = line.rest;
  }
  for (const { name, flag, values } of line.options) {
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
      case 'target':
        args.target = value;
        break;
      case 'json':
        args.json = value;
        break;
      case 'markdown':
        args.markdown = value;
        break;
      case 'html':
        args.html = value;
        break;
      case 'connect-timeout':
        args.connectTimeoutMs = parseDurationWithUnit(value, flag);
        break;
      case 'no-color':
        args.color = false;
        break;
      case 'color':
        args.color = true;
        break;
      case 'help':
        args.help = true;
        break;
    }
  }
  if (!args.help && args.upstream === undefined)
    throw new PooltestError(
      'BAD_ARGUMENTS',
      'pooltest watch needs --upstream URL (the PostgreSQL or pooler to put the proxy in front of)',
    );
  if (args.report !== undefined && args.target !== undefined)
    throw new PooltestError('BAD_ARGUMENTS', '--report and --target both say what the pooler does: give one of them');
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
