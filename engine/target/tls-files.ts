/**
 * What TLS verifies for each libpq sslmode, and the certificate files it needs.
 *
 * | sslmode            | encrypts           | verifies the chain           | verifies the host name |
 * |--------------------|--------------------|------------------------------|------------------------|
 * | disable            | no                 | -                            | -                      |
 * | allow, prefer      | if the server asks / offers | no                  | no                     |
 * | require            | yes                | only when sslrootcert is set | no                     |
 * | verify-ca          | yes                | yes (sslrootcert)            | no                     |
 * | verify-full        | yes                | yes (sslrootcert)            | yes                    |
 *
 * `require` with a root certificate behaves like verify-ca, as in libpq. `sslrootcert=system`
 * trusts the platform's roots (libpq 16); otherwise only the given file is trusted, never
 * Node's built-in list, so a certificate the user did not vouch for is refused.
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { PooltestError } from '../record/errors.js';

/** What of a target (a Target, target.ts) its TLS options are made from, as libpq names them. */
export interface TlsSettings {
  sslmode: string;
  sslrootcert?: string;
  sslcert?: string;
  sslkey?: string;
}

/** Node TLS options for one connection to `t`. Unreadable files are TLS_FAILED. */
export function tlsOptions(t: TlsSettings): ConnectionOptions {
  const verify =
    t.sslmode === 'verify-ca' ||
    t.sslmode === 'verify-full' ||
    (t.sslmode === 'require' && t.sslrootcert !== undefined);
  const opts: ConnectionOptions = { rejectUnauthorized: verify };
  if (verify && t.sslrootcert !== undefined && t.sslrootcert !== 'system')
    opts.ca = readPem(t.sslrootcert, 'sslrootcert');
  // The chain is checked; the name in it is not (verify-ca, or require with a root certificate).
  if (verify && t.sslmode !== 'verify-full') opts.checkServerIdentity = () => undefined;
  if (t.sslcert !== undefined) opts.cert = readPem(t.sslcert, 'sslcert');
  if (t.sslkey !== undefined) opts.key = readPem(t.sslkey, 'sslkey');
  return opts;
}

/**
 * Read for every connection attempt, as libpq does, and never kept: a file replaced while the
 * process lives (a renewed client certificate, a rotated root) is what the next connection
 * uses. A table of contents by path outlived runs (a library user's next run, a long-lived
 * `pooltest watch` proxy) and went on presenting the old file. A few kilobytes read from the
 * page cache cost little beside the TLS handshake they are for.
 */
function readPem(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new PooltestError(
      'TLS_FAILED',
      `cannot read ${what} "${file}": ${err instanceof Error ? err.message : String(err)}`,
      { file },
    );
  }
}
