/**
 * libpq's keyword/value connection strings (`host=db port=6432 user=app dbname='my db'`), as
 * psql accepts them for `-d` and as a whole connection string. Hand-written: pg-connection-string
 * (node-postgres's parser, installed with pg) reads URLs only, and this grammar is small: a
 * keyword, `=` (spaces allowed around it), and a value that is either unquoted (ends at
 * whitespace) or in single quotes; a backslash escapes the next character in both.
 */
import { PooltestError } from '../record/errors.js';

/** Whether `text` is a keyword/value string rather than `host:port` or a URL (libpq: it has an `=`). */
export function isKeywordValue(text: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:\/\//i.test(text) && text.includes('=');
}

/** The keywords and values, in order given (a later one wins, as in libpq); BAD_TARGET_URL when malformed. */
export function parseKeywordValue(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  const bad = (why: string): PooltestError =>
    // The text itself is not shown: it may hold a password.
    new PooltestError('BAD_TARGET_URL', `the connection string is not libpq keyword=value pairs: ${why}`);
  const space = (): void => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  for (;;) {
    space();
    if (i >= text.length) return out;
    const start = i;
    while (i < text.length && /[A-Za-z0-9_]/.test(text[i]!)) i++;
    const key = text.slice(start, i);
    space();
    if (key === '' || text[i] !== '=') throw bad(`expected keyword= at character ${start + 1}`);
    i++;
    space();
    let value = '';
    if (text[i] === "'") {
      for (i++; ; i++) {
        if (i >= text.length) throw bad(`the quoted value of ${key} is not closed`);
        if (text[i] === '\\' && i + 1 < text.length) value += text[++i];
        else if (text[i] === "'") break;
        else value += text[i];
      }
      i++;
    } else {
      for (; i < text.length && !/\s/.test(text[i]!); i++)
        value += text[i] === '\\' && i + 1 < text.length ? text[++i] : text[i];
    }
    out.set(key, value);
  }
}
