/**
 * Turning what the user typed (`host:port`, a `postgres://` URL, flags, PG* variables) into a
 * connection target, and back into something safe to print. The password lives only in the
 * {@link Target} object handed to `pg`; {@link publicTarget} is what reports and messages use.
 */
import { existsSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import os from 'node:os';
import type { ClientConfig } from 'pg';
import { isKeywordValue, parseKeywordValue } from './conninfo.js';
import { PooltestError } from '../record/errors.js';
import { passwordFromFile } from './pass-file.js';
import { tlsOptions } from './tls-files.js';
import type { PublicTarget } from '../types.js';

/** libpq's sslmode values that pooltest honours. */
export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';

export interface Target {
  host: string;
  port: number;
  user: string;
  password: string | undefined;
  /**
   * The password file the password was read from (engine/target/pass-file.ts), when none was given:
   * an endpoint derived from this one (--direct) then looks the file up for itself first.
   */
  passFile?: string;
  database: string;
  sslmode: SslMode;
  /**
   * libpq's sslrootcert: a PEM file of trusted roots, or `system` for the platform's store.
   * Set when given (URL, PGSSLROOTCERT) or when libpq's default ~/.postgresql/root.crt exists.
   */
  sslrootcert?: string;
  /** Client certificate and key (PEM files), as libpq's sslcert/sslkey. */
  sslcert?: string;
  sslkey?: string;
}

export interface TargetInput {
  /**
   * `host:port`, `host`, `[ipv6]:port`, a bare IPv6 literal, a Unix socket directory (`/tmp`), a
   * `postgres://` / `postgresql://` URL, or libpq keyword/value pairs (`host=db port=6432`).
   */
  target?: string;
  /** psql's `-h`: a host name or a Unix socket directory; wins over what `target` says. */
  host?: string;
  /** psql's `-p`; wins over what `target` says. */
  port?: number;
  user?: string;
  password?: string;
  database?: string;
}

const SSL_MODES: readonly SslMode[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

/**
 * Resolves a target the way psql would: explicit flags first, then what the URL says, then
 * the PG* environment variables, then libpq's defaults.
 */
export function resolveTarget(
  input: TargetInput,
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = passFileWarning,
): Target {
  const fromText = input.target !== undefined ? parseTargetText(input.target) : {};
  const port = input.port ?? fromText.port ?? numberFromEnv(env.PGPORT) ?? 5432;
  const user = input.user ?? fromText.user ?? env.PGUSER ?? osUser();
  const sslmode = fromText.sslmode ?? parseSslMode(env.PGSSLMODE) ?? 'prefer';
  const target: Target = {
    host: input.host ?? fromText.host ?? env.PGHOST ?? '127.0.0.1',
    port,
    user,
    password: input.password ?? fromText.password ?? env.PGPASSWORD,
    database: input.database ?? fromText.database ?? env.PGDATABASE ?? user,
    sslmode,
  };
  // Last, as libpq: the password file, for this host, port, database and user.
  if (target.password === undefined) withPassFile(target, env, warn);
  return withTlsFiles(target, fromText, env);
}

/** How a library caller hears that a password file was ignored (the CLI prints it instead). */
function passFileWarning(message: string): void {
  process.emitWarning(message, { code: 'POOLTEST_PASSFILE' });
}

function withPassFile(t: Target, env: NodeJS.ProcessEnv, warn: (message: string) => void): void {
  const found = passwordFromFile(t, env, warn);
  if (found === undefined) return;
  t.password = found.password;
  t.passFile = found.file;
}

/**
 * libpq's default user: the operating system's name for the effective user (not $USER, which
 * libpq ignores). `postgres` only where the OS cannot say (a uid with no passwd entry).
 */
function osUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'postgres';
  }
}

/**
 * libpq treats a host that starts with a slash as the directory of a Unix socket
 * (`<dir>/.s.PGSQL.<port>`): never a name to look up.
 */
export function isSocketHost(host: string): boolean {
  return host.startsWith('/');
}

/** What `net.connect` needs for the endpoint: the socket file, or host and port. */
export function netAddress(t: Pick<Target, 'host' | 'port'>): { path: string } | { host: string; port: number } {
  return isSocketHost(t.host)
    ? { path: `${t.host.replace(/\/+$/, '')}/.s.PGSQL.${t.port}` }
    : { host: t.host, port: t.port };
}

/**
 * The certificate files, as libpq finds them: the URL, then PGSSL* variables, then the files
 * under ~/.postgresql when they exist. verify-ca and verify-full without any root certificate
 * fail here, before connecting, as libpq does (rather than silently trusting Node's own CAs).
 */
function withTlsFiles(t: Target, given: ParsedText, env: NodeJS.ProcessEnv): Target {
  const home = env.HOME;
  const fallback = (name: string): string | undefined => {
    const file = home ? `${home}/.postgresql/${name}` : undefined;
    return file && existsSync(file) ? file : undefined;
  };
  const rootcert = given.sslrootcert ?? env.PGSSLROOTCERT ?? fallback('root.crt');
  const cert = given.sslcert ?? env.PGSSLCERT ?? fallback('postgresql.crt');
  const key = given.sslkey ?? env.PGSSLKEY ?? fallback('postgresql.key');
  if (rootcert !== undefined) t.sslrootcert = rootcert;
  if (cert !== undefined) t.sslcert = cert;
  if (key !== undefined) t.sslkey = key;
  if ((t.sslmode === 'verify-ca' || t.sslmode === 'verify-full') && rootcert === undefined) {
    throw new PooltestError(
      'TLS_FAILED',
      `sslmode=${t.sslmode} needs a root certificate to verify ${hostPort(t.host, t.port)} against, and none was given: ~/.postgresql/root.crt does not exist. ` +
        "Pass sslrootcert=FILE in the URL (or PGSSLROOTCERT), use sslrootcert=system for the system's trusted roots, or choose sslmode=require (no verification).",
      { host: t.host, port: t.port, sslmode: t.sslmode },
    );
  }
  return t;
}

export interface ParsedText {
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  sslmode?: SslMode;
  sslrootcert?: string;
  sslcert?: string;
  sslkey?: string;
}

/** What a `host:port` or URL spells out, and nothing else. */
export function parseTargetText(text: string, what = 'target'): ParsedText {
  // An empty value (`--target ''`, an unset variable in a script) would otherwise mean
  // localhost:5432 without a word: libpq's defaults are for leaving the target out.
  if (text.trim() === '')
    throw new PooltestError(
      'BAD_TARGET_URL',
      `${what === 'target' ? 'the target' : what} is empty: give host:port or a postgres:// URL (or leave it out to use the PG* variables and defaults)`,
    );
  if (/^postgres(ql)?:\/\//i.test(text)) return parseUrl(text, what);
  if (isKeywordValue(text)) {
    const pairs = parseKeywordValue(text);
    for (const key of pairs.keys())
      if (!KEYWORDS.has(key))
        throw new PooltestError(
          'BAD_TARGET_URL',
          `connection keyword "${key}" is not one pooltest uses (it takes ${[...KEYWORDS].join(', ')})`,
        );
    return fromParameters((k) => pairs.get(k), 'the connection string');
  }
  if (isSocketHost(text)) return { host: text };
  if (text.includes('://')) {
    throw new PooltestError(
      'BAD_TARGET_URL',
      `${what} "${redactEndpoint(text)}" is not a postgres:// URL or host:port`,
    );
  }
  // A bare IPv6 literal is a host, as a bare name is; its last group cannot be told from a
  // port, so a port needs the brackets (`[::1]:6432`), as in a URL.
  if (isIPv6(text)) return { host: text };
  const match = /^(\[[^\]]+\]|[^:/\s]+)(?::(\d+))?$/.exec(text);
  if (!match)
    throw new PooltestError(
      'BAD_TARGET_URL',
      `${what} "${redactEndpoint(text)}" is not host:port or a postgres:// URL`,
    );
  const host = match[1]!.replace(/^\[|\]$/g, '');
  return { host, ...(match[2] ? { port: checkedPort(match[2], text) } : {}) };
}

/** The libpq keywords pooltest honours, in a keyword/value string and a URL's query alike. */
const KEYWORDS = new Set(['host', 'port', 'user', 'password', 'dbname', 'sslmode', 'sslrootcert', 'sslcert', 'sslkey']);

/** What libpq keywords say (from keyword/value pairs or a URL's query); `shown` names the source in errors. */
function fromParameters(get: (key: string) => string | undefined, shown: string): ParsedText {
  const out: ParsedText = {};
  const host = get('host');
  if (host) out.host = host;
  const port = get('port');
  if (port) out.port = checkedPort(port, shown);
  const user = get('user');
  if (user) out.user = user;
  const password = get('password');
  if (password) out.password = password;
  const dbname = get('dbname');
  if (dbname) out.database = dbname;
  const sslmode = get('sslmode');
  if (sslmode !== undefined) {
    const mode = parseSslMode(sslmode);
    if (!mode) throw new PooltestError('BAD_TARGET_URL', `sslmode "${sslmode}" is not one of ${SSL_MODES.join(', ')}`);
    out.sslmode = mode;
  }
  for (const name of ['sslrootcert', 'sslcert', 'sslkey'] as const) {
    const value = get(name);
    if (value) out[name] = value;
  }
  return out;
}

/**
 * URLs are parsed here with the WHATWG parser rather than with pg-connection-string (node-
 * postgres's parser): that one leaves an invalid %-escape undecoded (a password sent as typed,
 * failing far from the typo), writes a warning about sslmode to stderr, and maps sslmode to
 * its own TLS options, while pooltest follows libpq's sslmode itself (session/connect.ts).
 */
function parseUrl(text: string, what: string): ParsedText {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // The URL parser refuses a port past 65535 as a whole: said as `host:99999` is.
    const port = /^[a-z]+:\/\/(?:.*@)?(?:\[[^\]]*\]|[^:/?#@]*):(\d+)(?=[/?#]|$)/i.exec(text)?.[1];
    if (port !== undefined) checkedPort(port, redactEndpoint(text));
    throw new PooltestError('BAD_TARGET_URL', `${what} "${redactEndpoint(text)}" is not a valid URL`);
  }
  const decode = (part: string, what: string): string => {
    try {
      return decodeURIComponent(part);
    } catch {
      // URIError: a % not followed by two hex digits. The message never shows the password.
      throw new PooltestError(
        'BAD_TARGET_URL',
        `the ${what} in "${redactEndpoint(text)}" has an invalid %-escape (write a literal % as %25)`,
      );
    }
  };
  const out: ParsedText = {};
  // A socket directory spelled in the host part (`postgres://%2Ftmp/db`): libpq decodes it.
  if (url.hostname) out.host = decode(url.hostname, 'host').replace(/^\[|\]$/g, '');
  if (url.port) out.port = checkedPort(url.port, redactEndpoint(text));
  if (url.username) out.user = decode(url.username, 'user name');
  if (url.password) out.password = decode(url.password, 'password');
  const db = url.pathname.replace(/^\//, '');
  if (db) out.database = decode(db, 'database name');
  // libpq keywords in the query (`postgresql:///db?host=/tmp`) are read after the URL's parts
  // and so win over them, as in libpq. One pooltest does not use is refused, as in a keyword/value
  // string: silently dropping `?options=-c statement_timeout=1` would test another session than
  // the user's application gets.
  for (const key of url.searchParams.keys())
    if (!KEYWORDS.has(key))
      throw new PooltestError(
        'BAD_TARGET_URL',
        `connection keyword "${key}" in the URL is not one pooltest uses (it takes ${[...KEYWORDS].join(', ')})`,
      );
  Object.assign(
    out,
    fromParameters((key) => url.searchParams.get(key) ?? undefined, redactEndpoint(text)),
  );
  return out;
}

function checkedPort(text: string, shown: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new PooltestError('BAD_TARGET_URL', `port "${text}" in "${shown}" is not a TCP port`);
  }
  return port;
}

function numberFromEnv(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const n = Number(value);
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : undefined;
}

function parseSslMode(value: string | undefined): SslMode | undefined {
  return SSL_MODES.find((m) => m === value);
}

/** The target without its password, for reports, messages and logs. */
export function publicTarget(t: Target): PublicTarget {
  return { host: t.host, port: t.port, user: t.user, database: t.database, ssl: t.sslmode };
}

/** `user@host:port/database` (`user@[::1]:port/database` for IPv6), never with the password. */
export function describeTarget(t: Pick<Target, 'user' | 'host' | 'port' | 'database'>): string {
  return `${t.user}@${hostPort(t.host, t.port)}/${t.database}`;
}

/** `host:port`, with an IPv6 host in brackets so that its port reads apart from it. */
export function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * One endpoint as the user typed it (`--target`, `--direct`, `--upstream`), for a message that
 * echoes it: everything between the user name's `:` and the last `@` is the password, as a URL
 * parser reads it, whatever it holds (spaces, `@`, quotes: a raw space is valid in a URL's
 * password). redactUrl, made for whole documents, stops at such characters so as not to eat
 * the text around a URL; an input is one endpoint, so nothing else can be lost here.
 */
export function redactEndpoint(text: string): string {
  const at = text.lastIndexOf('@');
  if (at < 0) return redactUrl(text);
  const scheme = /^[a-z][\w+.-]*:\/+/i.exec(text)?.[0] ?? '';
  const userinfo = text.slice(scheme.length, at);
  const colon = userinfo.indexOf(':');
  const kept = colon < 0 ? text : `${scheme}${userinfo.slice(0, colon + 1)}***${text.slice(at)}`;
  return redactUrl(kept);
}

/** Replaces the password of anything that looks like a connection URL. */
export function redactUrl(text: string): string {
  return (
    text
      .replace(/(\w+:\/+[^:/@\s]*:)([^@\s]*)(@)/g, '$1***$3')
      // Mistyped forms too: `user:secret@host`, `postgres:/user:secret@host`.
      .replace(/(^|[\s"'=/])([^\s"'=/:@]+:)([^\s@"'/][^\s@"']*)(@)/g, '$1$2***$4')
      // A keyword/value string's or a URL query's password (`password='s e'`, `?password=s`).
      .replace(/(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s&]+)/gi, '$1***')
  );
}

/** pg's password callback when there is none: undefined is "no password", as for pg itself. */
const noPassword = (() => undefined) as unknown as () => string;

/**
 * `pg` configuration for one connection attempt. `tls` says whether this attempt uses TLS:
 * libpq's `allow` and `prefer` are two attempts (plaintext then TLS, or TLS then plaintext),
 * which session/connect.ts makes; every other mode is one. What TLS verifies follows libpq
 * (see tls-files.ts).
 */
export function pgConfig(
  t: Target,
  connectTimeoutMs: number,
  applicationName = 'pooltest',
  tls = t.sslmode !== 'disable' && t.sslmode !== 'allow',
): ClientConfig {
  // libpq never negotiates TLS over a Unix socket, whatever sslmode says.
  const ssl: ClientConfig['ssl'] = tls && !isSocketHost(t.host) ? tlsOptions(t) : false;
  return {
    host: t.host,
    port: t.port,
    user: t.user,
    // With no password, a function answering none: pg would otherwise look in the password
    // file itself on every login (a lookup it deprecates), warning again about a file that
    // resolveTarget already read, or ignored and said why, once for the run.
    password: t.password ?? noPassword,
    database: t.database,
    ssl,
    connectionTimeoutMillis: connectTimeoutMs,
    application_name: applicationName,
    keepAlive: true,
  };
}

/** A second endpoint (`--direct`, `--compare`): what it does not spell out comes from `base`. */
export function resolveRelated(
  text: string,
  base: Target,
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = passFileWarning,
  /** How messages name the endpoint: `--direct`, `--compare`. */
  what = '--direct',
): Target {
  const given = parseTargetText(text, what);
  const defined = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  const related: Target = { ...base, ...defined };
  // The base's password came from the password file: so does this endpoint's, from its own line
  // when the file has one (libpq would look it up for this host and port), else the base's.
  if (given.password === undefined && base.passFile !== undefined) {
    const own = passwordFromFile(related, env, warn);
    if (own !== undefined) related.password = own.password;
  }
  return related;
}
