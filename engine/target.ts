/**
 * Turning what the user typed (`host:port`, a `postgres://` URL, flags, PG* variables) into a
 * connection target, and back into something safe to print. The password lives only in the
 * {@link Target} object handed to `pg`; {@link publicTarget} is what reports and messages use.
 */
import type { ClientConfig } from 'pg';
import { PooltestError } from './errors.js';
import type { PublicTarget } from './types.js';

/** libpq's sslmode values that pooltest honours. */
export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';

export interface Target {
  host: string;
  port: number;
  user: string;
  password: string | undefined;
  database: string;
  sslmode: SslMode;
}

export interface TargetInput {
  /** `host:port`, `host`, or a `postgres://` / `postgresql://` URL. */
  target?: string;
  user?: string;
  password?: string;
  database?: string;
}

const SSL_MODES: readonly SslMode[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

/**
 * Resolves a target the way psql would: explicit flags first, then what the URL says, then
 * the PG* environment variables, then libpq's defaults.
 */
export function resolveTarget(input: TargetInput, env: NodeJS.ProcessEnv = process.env): Target {
  const fromText = input.target ? parseTargetText(input.target) : {};
  const port = fromText.port ?? numberFromEnv(env.PGPORT) ?? 5432;
  const user = input.user ?? fromText.user ?? env.PGUSER ?? env.USER ?? 'postgres';
  const sslmode = fromText.sslmode ?? parseSslMode(env.PGSSLMODE) ?? 'prefer';
  return {
    host: fromText.host ?? env.PGHOST ?? '127.0.0.1',
    port,
    user,
    password: input.password ?? fromText.password ?? env.PGPASSWORD,
    database: input.database ?? fromText.database ?? env.PGDATABASE ?? user,
    sslmode,
  };
}

export interface ParsedText {
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  sslmode?: SslMode;
}

/** What a `host:port` or URL spells out, and nothing else. */
export function parseTargetText(text: string): ParsedText {
  if (/^postgres(ql)?:\/\//i.test(text)) return parseUrl(text);
  if (text.includes('://')) {
    throw new PooltestError('BAD_TARGET_URL', `target "${redactUrl(text)}" is not a postgres:// URL or host:port`);
  }
  const match = /^(\[[^\]]+\]|[^:/\s]+)(?::(\d+))?$/.exec(text);
  if (!match) throw new PooltestError('BAD_TARGET_URL', `target "${text}" is not host:port or a postgres:// URL`);
  const host = match[1]!.replace(/^\[|\]$/g, '');
  return { host, ...(match[2] ? { port: checkedPort(match[2], text) } : {}) };
}

function parseUrl(text: string): ParsedText {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new PooltestError('BAD_TARGET_URL', `target "${redactUrl(text)}" is not a valid URL`);
  }
  const out: ParsedText = {};
  if (url.hostname) out.host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.port) out.port = checkedPort(url.port, redactUrl(text));
  if (url.username) out.user = decodeURIComponent(url.username);
  if (url.password) out.password = decodeURIComponent(url.password);
  const db = url.pathname.replace(/^\//, '');
  if (db) out.database = decodeURIComponent(db);
  const sslmode = url.searchParams.get('sslmode');
  if (sslmode !== null) {
    const mode = parseSslMode(sslmode);
    if (!mode) throw new PooltestError('BAD_TARGET_URL', `sslmode "${sslmode}" is not one of ${SSL_MODES.join(', ')}`);
    out.sslmode = mode;
  }
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

/** `user@host:port/database`, never with the password. */
export function describeTarget(t: Target): string {
  return `${t.user}@${t.host}:${t.port}/${t.database}`;
}

/** Replaces the password of anything that looks like a connection URL. */
export function redactUrl(text: string): string {
  return text.replace(/(\w+:\/\/[^:/@\s]*:)([^@\s]*)(@)/g, '$1***$3');
}

/**
 * `pg` configuration for a target. sslmode follows libpq: `disable` never, `allow`/`prefer` try
 * TLS without verifying (pg cannot fall back to plaintext, so these mean "TLS, unverified"
 * only when the caller retries; see session.ts), `require` TLS without verification,
 * `verify-*` TLS with verification.
 */
export function pgConfig(t: Target, connectTimeoutMs: number, applicationName = 'pooltest'): ClientConfig {
  let ssl: ClientConfig['ssl'] = false;
  if (t.sslmode === 'require' || t.sslmode === 'allow') ssl = { rejectUnauthorized: false };
  if (t.sslmode === 'verify-ca' || t.sslmode === 'verify-full') ssl = { rejectUnauthorized: true };
  return {
    host: t.host,
    port: t.port,
    user: t.user,
    password: t.password,
    database: t.database,
    ssl,
    connectionTimeoutMillis: connectTimeoutMs,
    application_name: applicationName,
    keepAlive: true,
  };
}

/** A second endpoint (`--direct`, `--compare`): what it does not spell out comes from `base`. */
export function resolveRelated(text: string, base: Target): Target {
  const given = parseTargetText(text);
  const defined = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  return { ...base, ...defined };
}
