/**
 * Command-line arguments of `pooltest audit`. `--sql` and `--log` take every following
 * argument up to the next option, so a shell glob works: `--sql migrations/*.sql`.
 */
import { PooltestError } from '../engine/record/errors.js';
import { parseDurationWithUnit } from '../engine/record/time.js';
import { DEFAULT_MAX_STATEMENT_BYTES, DEFAULT_TIMEOUT_MS, type AuditOptions } from './audit.js';
import { LOG_FORMATS, type LogFormat } from './log-format.js';
import { positiveInt, readCommandLine, type OptionSpec } from '../common/command-args.js';

/** Everything `pooltest audit` was asked to do. */
export interface AuditArgs extends AuditOptions {
  json?: string;
  markdown?: string;
  /** Audit reports to merge into one (`--merge`), instead of auditing inputs. */
  merge?: string[];
  failOnFindings: boolean;
  /** false for --no-color; undefined lets NO_COLOR / FORCE_COLOR / the terminal decide. */
  color?: boolean;
  help: boolean;
}

export const AUDIT_USAGE = `Usage: pooltest audit [inputs] [pooler] [output]

Finds the statements of an application that rely on session state, and says what a pooler
does to each of them.

Inputs (any combination, at least one):
  --sql FILE...             SQL files or migrations (several statements per file; '-' = stdin; 16 MiB each at most)
  --log FILE...             PostgreSQL server logs with log_statement = 'all' ('-' = stdin)
  --log-format FORMAT       stderr | csvlog | jsonlog (default: detected from the first line)
  --stats URL               read pg_stat_statements over a direct connection (with call counts)
  --stats-partial           audit the visible rows when other roles' texts are hidden

Merging (instead of inputs and pooler):
  --merge FILE...           audit reports (--json) of several logs or servers merged into one:
                            counts added, first sources kept, ordered as one audit of all

Pooler (at most one; without either, what transaction pooling typically does is shown):
  --report FILE             a pooltest JSON report of the pooler (pooltest --json FILE)
  --target URL              run the relevant checks against the pooler now

Output:
  --json FILE               write the audit as JSON
  --markdown FILE           write the audit as Markdown
  --fail-on-findings        without --report/--target, exit 1 (not 3) when a finding typically breaks
  --no-color                plain terminal output (NO_COLOR is honoured too)

Limits:
  --timeout T               bound for each network step: 10s or 2500ms, with its unit (default ${DEFAULT_TIMEOUT_MS}ms)
  --max-statement-bytes N   longer statements are reported as unparsed (default ${DEFAULT_MAX_STATEMENT_BYTES})
  --jobs N                  threads per log file (default: one per core for a log file of
                            64 MB or more, else 1; stdin and csvlog are always read on one thread)

Statements that undo session state (RESET, DEALLOCATE, UNLISTEN, pg_advisory_unlock*,
DISCARD) are shown as the cleanup half of a finding, never as breaks of their own. A driver's
named prepared statements are found in server logs (execute NAME:, and parse/bind lines where
logged); pg_stat_statements does not record statement names.

Exit codes:
  0  nothing breaks (no finding, or none breaks on the pooler given)
  1  at least one finding breaks on the pooler given (--report or --target), or, with
     --fail-on-findings and no pooler given, a finding typically breaks
  2  the audit could not run (bad arguments, unreadable input, stats server unreachable)
  3  no pooler given, and findings typically break under transaction pooling: not confirmed
     (give --report or --target for a verdict, or --fail-on-findings to make this 1)
`;

const AUDIT_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  sql: { type: 'files' },
  log: { type: 'files' },
  merge: { type: 'files' },
  'log-format': { type: 'string' },
  stats: { type: 'string' },
  'stats-partial': { type: 'boolean' },
  report: { type: 'string' },
  target: { type: 'string' },
  json: { type: 'string' },
  markdown: { type: 'string' },
  'fail-on-findings': { type: 'boolean' },
  'no-color': { type: 'boolean' },
  color: { type: 'boolean' },
  timeout: { type: 'string' },
  jobs: { type: 'string' },
  'max-statement-bytes': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

/** Parses `pooltest audit` arguments (without the word `audit`). */
export function parseAuditArgs(argv: string[]): AuditArgs {
  const args: AuditArgs = { failOnFindings: false, help: false };
  const sql: string[] = [];
  const logs: string[] = [];
  const merge: string[] = [];
  const stray = (arg: string): string => `unexpected argument "${arg}": files go after --sql or --log`;
  const line = readCommandLine('audit', argv, AUDIT_OPTIONS, stray);
  if (line.rest !== null) throw new PooltestError('BAD_ARGUMENTS', stray('--'));
  for (const { name, flag, values } of line.options) {
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
      case 'target':
        args.target = value;
        break;
      case 'json':
        args.json = value;
        break;
      case 'markdown':
        args.markdown = value;
        break;
      case 'fail-on-findings':
        args.failOnFindings = true;
        break;
      case 'no-color':
        args.color = false;
        break;
      case 'color':
        args.color = true;
        break;
      case 'timeout':
        args.timeoutMs = parseDurationWithUnit(value, flag);
        break;
      case 'jobs':
        args.jobs = positiveInt(flag, value);
        break;
      case 'max-statement-bytes':
        args.maxStatementBytes = positiveInt(flag, value);
        break;
      case 'help':
        args.help = true;
        break;
    }
  }
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
