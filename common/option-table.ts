/**
 * The one table of the options every pooltest command shares (issue 40): the psql connection
 * words, the report outputs, the switches and the bounds. Each command declares which of them
 * apply to it (common/command-grammar.ts), so that `-U app` means the user name in `pooltest`,
 * `drivers`, `audit` and `watch` alike, `-h` is the host everywhere (as in psql; help is
 * `--help` or `-?`), and each `--help` is generated from these rows instead of being written
 * (and forgotten) by hand per command.
 */

/** A value (`--json FILE`), every argument up to the next option (`--sql a.sql b.sql`), or a switch. */
export type OptionType = 'string' | 'files' | 'boolean';

/** One row of a help text and of the parser's table. */
export interface OptionRow {
  type: OptionType;
  /** One letter, as `-U`. */
  short?: string;
  /** Other long names that mean the same (`--username` for `--user`). */
  aliases?: readonly string[];
  /** What the value is called in the help (`HOST`, `FILE`). */
  value?: string;
  /** One sentence or two; the help wraps it. */
  help: string;
}

/** Where a shared option is listed in a generated help. */
export type SharedGroup = 'Connection' | 'Output' | 'General';

export interface SharedRow extends OptionRow {
  group: SharedGroup;
}

/** The names of the shared options, as the parser reports them (aliases folded in). */
export type SharedName =
  | 'target'
  | 'host'
  | 'port'
  | 'user'
  | 'database'
  | 'password'
  | 'direct'
  | 'json'
  | 'junit'
  | 'markdown'
  | 'html'
  | 'no-store'
  | 'quiet'
  | 'no-color'
  | 'color'
  | 'timeout'
  | 'profile'
  | 'help'
  | 'version';

/** The report outputs, in the order they are listed and written. */
export const OUTPUT_NAMES = ['json', 'junit', 'markdown', 'html'] as const;
export type OutputName = (typeof OUTPUT_NAMES)[number];

/** Standard output, as a value of an output option (as psql's `-o -` and most Unix tools). */
export const STDOUT = '-';

/**
 * The shared options. A command may give its own wording of `help` for a row (what `--target`
 * is to it); the name, letter, aliases and value are the same everywhere.
 */
export const SHARED_OPTIONS: Readonly<Record<SharedName, SharedRow>> = {
  target: {
    group: 'Connection',
    type: 'string',
    value: 'T',
    help: "the pooler: host:port, postgres://user@host:port/db?sslmode=..., libpq pairs ('host=db port=6432 user=app'), or a Unix socket directory (/tmp)",
  },
  host: {
    group: 'Connection',
    type: 'string',
    short: 'h',
    value: 'HOST',
    help: 'host name or Unix socket directory (PGHOST); wins over what --target says',
  },
  port: { group: 'Connection', type: 'string', short: 'p', value: 'PORT', help: 'port (PGPORT; default 5432)' },
  user: {
    group: 'Connection',
    type: 'string',
    short: 'U',
    aliases: ['username'],
    value: 'USER',
    help: 'user name, also --username (PGUSER; default: the operating-system user)',
  },
  database: {
    group: 'Connection',
    type: 'string',
    short: 'd',
    aliases: ['dbname'],
    value: 'DB',
    help: 'database name, also --dbname (PGDATABASE; default: the user name); a URL or keyword=value string here is the whole connection string',
  },
  password: {
    group: 'Connection',
    type: 'string',
    value: 'P',
    help: "the password (or PGPASSWORD, the URL, or ~/.pgpass / PGPASSFILE as libpq reads it). On a machine others log in to, set PGPASSWORD instead: any user can read a password given in --password or a URL from the process list (ps), while a process's environment is readable only by its own user and root",
  },
  direct: {
    group: 'Connection',
    type: 'string',
    value: 'T',
    help: "the PostgreSQL behind the pooler (what it does not spell out comes from the target's words)",
  },
  json: { group: 'Output', type: 'string', value: 'FILE', help: 'write the JSON report' },
  junit: { group: 'Output', type: 'string', value: 'FILE', help: 'write JUnit XML for CI' },
  markdown: {
    group: 'Output',
    type: 'string',
    value: 'FILE',
    help: 'write Markdown for a pull request or a docs page',
  },
  html: { group: 'Output', type: 'string', value: 'FILE', help: 'write one self-contained HTML page' },
  'no-store': {
    group: 'General',
    type: 'boolean',
    help: 'keep no copy of the run under .pooltest/runs/',
  },
  quiet: { group: 'General', type: 'boolean', short: 'q', help: 'print no progress, only the result' },
  'no-color': { group: 'General', type: 'boolean', help: 'no colours (NO_COLOR is honoured too)' },
  color: { group: 'General', type: 'boolean', help: 'colours even when the output is not a terminal' },
  timeout: {
    group: 'General',
    type: 'string',
    value: 'T',
    help: 'bound for every connection and step: 10s (default) or 2500ms',
  },
  profile: { group: 'General', type: 'string', value: 'NAME', help: "assert a pooler's documented behaviour" },
  help: { group: 'General', type: 'boolean', short: '?', help: 'this help (-h is the host, as in psql)' },
  version: { group: 'General', type: 'boolean', short: 'V', help: 'the version' },
};

/** The connection words: they say which endpoint, and mean the same in every command. */
export const CONNECTION_NAMES = ['target', 'host', 'port', 'user', 'database', 'password', 'direct'] as const;

/** Every shared option, for the test that holds each command to the table. */
export const SHARED_NAMES = Object.keys(SHARED_OPTIONS) as SharedName[];
