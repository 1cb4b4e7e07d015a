/**
 * Command-line arguments of `pooltest audit`, read by its grammar (AUDIT_GRAMMAR) as every
 * command reads its own. `--sql` and `--log` take every following argument up to the next
 * option, so a shell glob works: `--sql migrations/*.sql`.
 */
import { PooltestError } from '../engine/record/errors.js';
import { DEFAULT_MAX_STATEMENT_BYTES, DEFAULT_TIMEOUT_MS, type AuditOptions } from './audit.js';
import { LOG_FORMATS, type LogFormat } from './log-format.js';
import { positiveInt } from '../common/command-args.js';
import { parseCommand, type CommandGrammar } from '../common/command-grammar.js';
import { renderHelp } from '../common/command-help.js';
import { poolerFromWords } from '../common/pooler-words.js';

/** Everything `pooltest audit` was asked to do. */
export interface AuditArgs extends AuditOptions {
  json?: string;
  markdown?: string;
  /** Audit reports to merge into one (`--merge`), instead of auditing inputs. */
  merge?: string[];
  failOnFindings: boolean;
  /** false for --no-color; undefined lets NO_COLOR / FORCE_COLOR / the terminal decide. */
  color?: boolean;
  /** No reading progress on stderr. */
  quiet: boolean;
  help: boolean;
  version: boolean;
}

/** `pooltest audit`'s grammar (common/command-grammar.ts): the shared words, and its own inputs. */
export const AUDIT_GRAMMAR: CommandGrammar = {
  command: 'audit',
  synopsis: ['pooltest audit [inputs] [pooler] [output]'],
  about: `Finds the statements of an application that rely on session state, and says what a pooler
does to each of them.`,
  shared: {
    target: 'the pooler: run the relevant checks against it now (host:port, postgres:// URL or libpq pairs)',
    host: 'host name or Unix socket directory of the pooler; with -p, a --target of its own',
    port: true,
    user: true,
    database: true,
    password: true,
    direct: 'the PostgreSQL behind --target, for the sweep after its checks',
    json: 'write the audit as JSON',
    markdown: 'write the audit as Markdown',
    timeout: `bound for each network step: 10s or 2500ms, with its unit (default ${DEFAULT_TIMEOUT_MS}ms)`,
    quiet: 'print no reading progress',
    'no-store': 'accepted for one command line with pooltest: the audit keeps no copy anyway',
    'no-color': 'plain terminal output (NO_COLOR is honoured too)',
    color: true,
    help: true,
    version: true,
  },
  own: {
    sql: {
      section: 'Inputs (any combination, at least one)',
      type: 'files',
      value: 'FILE',
      help: "SQL files or migrations (several statements per file; '-' = stdin; 16 MiB each at most)",
    },
    log: {
      section: 'Inputs (any combination, at least one)',
      type: 'files',
      value: 'FILE',
      help: "PostgreSQL server logs with log_statement = 'all' ('-' = stdin)",
    },
    'log-format': {
      section: 'Inputs (any combination, at least one)',
      type: 'string',
      value: 'FORMAT',
      help: 'stderr | csvlog | jsonlog (default: detected from the first line)',
    },
    stats: {
      section: 'Inputs (any combination, at least one)',
      type: 'string',
      value: 'URL',
      help: 'read pg_stat_statements over a direct connection (with call counts)',
    },
    'stats-partial': {
      section: 'Inputs (any combination, at least one)',
      type: 'boolean',
      help: "audit the visible rows when other roles' texts are hidden",
    },
    merge: {
      section: 'Merging (instead of inputs and pooler)',
      type: 'files',
      value: 'FILE',
      help: 'audit reports (--json) of several logs or servers merged into one: counts added, first sources kept, ordered as one audit of all',
    },
    report: {
      section: 'Connection',
      type: 'string',
      value: 'FILE',
      help: 'instead of --target: a pooltest JSON report of the pooler (pooltest --json FILE)',
    },
    'fail-on-findings': {
      section: 'Output',
      type: 'boolean',
      help: 'without --report/--target, exit 1 (not 3) when a finding typically breaks',
    },
    'max-statement-bytes': {
      section: 'General',
      type: 'string',
      value: 'N',
      help: `longer statements are reported as unparsed (default ${DEFAULT_MAX_STATEMENT_BYTES})`,
    },
    jobs: {
      section: 'General',
      type: 'string',
      value: 'N',
      help: 'threads per log file (default: one per core for a log file of 64 MB or more, else 1; stdin and csvlog are always read on one thread)',
    },
  },
  sections: [
    'Inputs (any combination, at least one)',
    'Merging (instead of inputs and pooler)',
    'Connection',
    'Output',
    'General',
  ],
  groupNotes: {
    Connection:
      'The pooler, at most one of --report and --target (or -h/-p); without either, what transaction pooling typically does is shown. -U, -d and --password refine --target.',
  },
  notes: `Statements that undo session state (RESET, DEALLOCATE, UNLISTEN, pg_advisory_unlock*,
DISCARD) are shown as the cleanup half of a finding, never as breaks of their own. A driver's
named prepared statements are found in server logs (execute NAME:, and parse/bind lines where
logged); pg_stat_statements does not record statement names.

Exit codes:
  0  nothing breaks (no finding, or none breaks on the pooler given)
  1  at least one finding breaks on the pooler given (--report or --target), or, with
     --fail-on-findings and no pooler given, a finding typically breaks
  2  the audit could not run (bad arguments, unreadable input, stats server unreachable)
  3  no pooler given, and findings typically break under transaction pooling: not confirmed
     (give --report or --target for a verdict, or --fail-on-findings to make this 1)`,
  noStdout: null,
  bareTimeout: 'unit',
  stray: (arg) => `unexpected argument "${arg}": files go after --sql or --log`,
};

/** The audit's help, generated from its grammar. */
export const AUDIT_USAGE = renderHelp(AUDIT_GRAMMAR);

/** Parses `pooltest audit` arguments (without the word `audit`). */
export function parseAuditArgs(argv: string[]): AuditArgs {
  const sql: string[] = [];
  const logs: string[] = [];
  const merge: string[] = [];
  const line = parseCommand(AUDIT_GRAMMAR, argv);
  if (line.rest !== null) throw new PooltestError('BAD_ARGUMENTS', AUDIT_GRAMMAR.stray('--')!);
  const s = line.shared;
  const args: AuditArgs = { failOnFindings: false, quiet: s.quiet, help: s.help, version: s.version };
  for (const key of ['target', 'host', 'port', 'user', 'database', 'password', 'direct', 'json', 'markdown'] as const)
    if (s[key] !== undefined) Object.assign(args, { [key]: s[key] });
  if (s.color !== undefined) args.color = s.color;
  if (s.timeoutMs !== undefined) args.timeoutMs = s.timeoutMs;
  for (const { name, flag, values } of line.own) {
    const value = values[0]!;
    switch (name) {
      case 'sql':
        sql.push(...values);
        break;
      case 'log':
        logs.push(...values);
        break;
      case 'merge':
        merge.push(...values);
        break;
      case 'log-format':
        args.logFormat = logFormat(value);
        break;
      case 'stats':
        args.stats = value;
        break;
      case 'stats-partial':
        args.statsPartial = true;
        break;
      case 'report':
        args.report = value;
        break;
      case 'fail-on-findings':
        args.failOnFindings = true;
        break;
      case 'jobs':
        args.jobs = positiveInt(flag, value);
        break;
      case 'max-statement-bytes':
        args.maxStatementBytes = positiveInt(flag, value);
        break;
    }
  }
  poolerFromWords(args);
  // Stdin can be read once: `--sql - --log -` would leave the second reading nothing.
  if ([...sql, ...logs].filter((f) => f === '-').length > 1)
    throw new PooltestError('BAD_ARGUMENTS', 'stdin (-) can be read only once: give it to one --sql or --log');
  if (sql.length > 0) args.sql = sql;
  if (logs.length > 0) args.logs = logs;
  if (merge.length > 0) {
    if (
      sql.length > 0 ||
      logs.length > 0 ||
      args.stats !== undefined ||
      args.report !== undefined ||
      args.target !== undefined
    )
      throw new PooltestError(
        'BAD_ARGUMENTS',
        '--merge combines finished audit reports: give it no --sql, --log, --stats, --report or --target',
      );
    args.merge = merge;
  }
  return args;
}

function logFormat(value: string): LogFormat | 'auto' {
  if (value === 'auto') return value;
  const format = LOG_FORMATS.find((f) => f === value);
  if (format === undefined)
    throw new PooltestError(
      'BAD_ARGUMENTS',
      `--log-format must be one of auto, ${LOG_FORMATS.join(', ')}, not "${value}"`,
    );
  return format;
}
