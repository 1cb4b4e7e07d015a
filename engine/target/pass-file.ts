/**
 * libpq's password file (`~/.pgpass`, or the file PGPASSFILE names), read once per target when
 * no password was given (`--password`, the URL, PGPASSWORD), so that every connection of the run
 * (the checks', the admin console's, the drivers') uses the one password the file has for it.
 * node-postgres looks the file up by itself, per connection, only when it is handed no password
 * (a lookup it has deprecated), so some of pooltest's connections found it and others did not.
 *
 * As libpq does: the first line whose host, port, database and user match (or are `*`) wins; a
 * host of `localhost` also matches a Unix-socket connection; a file with any group or world
 * access is ignored, with a warning. The lines are parsed and matched by the `pgpass` module (the
 * reader node-postgres uses). The password is never printed, only where it came from.
 */
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import helper from 'pgpass/lib/helper.js';

export interface PassFileQuery {
  host: string;
  port: number;
  database: string;
  user: string;
}

/**
 * The file libpq would read: PGPASSFILE, else .pgpass in $HOME, else in the user's home
 * directory; null when there is none to name (no HOME and a uid with no passwd entry, as in
 * some containers).
 */
export function passFileName(env: NodeJS.ProcessEnv): string | null {
  if (env.PGPASSFILE) return env.PGPASSFILE;
  if (env.HOME) return path.join(env.HOME, '.pgpass');
  try {
    return path.join(os.userInfo().homedir, '.pgpass');
  } catch {
    return null;
  }
}

/**
 * The password the file has for `q`, and the file, or undefined (no file, no line for it, or a file that is
 * ignored, in which case `warn` says why). Never throws: an unreadable file is no password, as
 * for libpq.
 */
export function passwordFromFile(
  q: PassFileQuery,
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
): { password: string; file: string } | undefined {
  const file = passFileName(env);
  if (file === null) return undefined;
  let text: string;
  try {
    const stats = statSync(file);
    if (!stats.isFile()) {
      warn(`password file "${file}" is not a plain file: ignored`);
      return undefined;
    }
    if (process.platform !== 'win32' && (stats.mode & 0o077) !== 0) {
      warn(`password file "${file}" has group or world access: ignored (permissions should be u=rw, 0600, or less)`);
      return undefined;
    }
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  // libpq: "localhost" in the file also stands for a connection over a Unix socket.
  const host = q.host.startsWith('/') ? 'localhost' : q.host;
  const connection = { host, port: q.port, database: q.database, user: q.user };
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*#/.test(line)) continue; // a comment, as libpq reads the file
    const entry = helper.parseLine(line);
    if (entry && helper.isValidEntry(entry) && helper.match(connection, entry))
      return { password: entry.password, file };
  }
  return undefined;
}
