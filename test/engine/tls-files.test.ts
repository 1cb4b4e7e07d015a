/**
 * Regression: certificate files were read once per process and kept by path, so a file
 * replaced while the process lived (a renewed client certificate, a rotated root; a library
 * user's next run, a long-lived watch proxy) was never read again and the old one went on being
 * presented. Each connection attempt now reads the files, as libpq does.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { tlsOptions } from '../../engine/target/tls-files.js';
import type { Target } from '../../engine/target/target.js';

const dir = mkdtempSync('/dev/shm/pooltest-tls-files-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Not a certificate: tlsOptions passes the bytes on, and Node parses them at connect. */
const pem = (name: string): string => `-----BEGIN CERTIFICATE-----\n${name}\n-----END CERTIFICATE-----\n`;

function target(files: Partial<Pick<Target, 'sslrootcert' | 'sslcert' | 'sslkey'>>): Target {
  return { host: 'db', port: 5432, user: 'u', password: undefined, database: 'd', sslmode: 'verify-full', ...files };
}

test('a certificate file replaced between two connections is read afresh for the second', () => {
  const root = path.join(dir, 'root.crt');
  const cert = path.join(dir, 'client.crt');
  writeFileSync(root, pem('old-root'));
  writeFileSync(cert, pem('old-client'));
  const first = tlsOptions(target({ sslrootcert: root, sslcert: cert }));
  expect(String(first.ca)).toContain('old-root');
  expect(String(first.cert)).toContain('old-client');
  writeFileSync(root, pem('new-root'));
  writeFileSync(cert, pem('new-client'));
  const second = tlsOptions(target({ sslrootcert: root, sslcert: cert }));
  expect(String(second.ca)).toContain('new-root');
  expect(String(second.cert)).toContain('new-client');
});

test('a certificate file that went away is TLS_FAILED, naming it, not the copy read before', () => {
  const root = path.join(dir, 'gone.crt');
  writeFileSync(root, pem('root'));
  expect(String(tlsOptions(target({ sslrootcert: root })).ca)).toContain('root');
  rmSync(root);
  expect(() => tlsOptions(target({ sslrootcert: root }))).toThrow(
    expect.objectContaining({ code: 'TLS_FAILED', message: expect.stringContaining(root) }),
  );
});
