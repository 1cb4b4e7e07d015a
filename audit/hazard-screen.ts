/**
 * A screen in front of the parser: one pass over a statement text that decides "no finding is
 * possible here" and, when it can, returns the text's shape. PostgreSQL's parser is by far the
 * audit's dearest step, and most texts of a real log (an ORM's statements with their values
 * written inline) hold none of the words a finding needs (screen-vocabulary.ts).
 *
 * Skipping the parser must not change the report, and the report says more than the findings:
 * it counts statements (a text may hold several) and lists texts that do not parse. So the
 * screen does not answer those questions itself. It returns a shape: the text with its plain
 * string literals and its small integer literals replaced by a mark. The classifier parses the
 * first text of each shape for real and answers the others of that shape from it. Two texts of
 * one shape differ only in values inside tokens of the same kind, which the grammar reads as
 * the same token (SCONST, ICONST), so they parse alike and split into the same statements.
 * Kept as written (never replaced): E'' / B'' / X'' / N'' strings (their contents can fail in
 * the lexer), dollar-quoted bodies, integers next to `(` or a keyword (the grammar checks a
 * few of those values, `float(0)`), anything not a plain run of at most 9 digits (10 digits
 * may no longer fit an int4 and become another token).
 *
 * The lexer follows PostgreSQL's (scan.l) where it matters: `--` and nested `/* *\/` comments,
 * standard-conforming strings ('' doubles a quote, a backslash is a character), E'' strings
 * (backslash escapes), quoted identifiers ("" doubles a quote; their contents are checked as
 * words too), `$n` parameters, dollar quotes with tags. Whenever it is unsure it gives up and
 * the text is parsed: `U&` strings and identifiers (their escapes can spell any word), a NUL
 * character (the parser stops at it), an unterminated comment, string or dollar quote.
 *
 * Hand-written rather than PostgreSQL's own lexer (libpg-query's scanSync): that lexer costs
 * about as much as the parse it would save.
 */
import { ANYWHERE_WORDS, LEADING_WORDS, TEMP_SCHEMA_PREFIX } from './screen-vocabulary.js';

/** Marks standing for a replaced literal; NUL never reaches a shape (such texts are parsed). */
const STRING_MARK = '\u0000s';
const NUMBER_MARK = '\u0000n';

/** What came before a token, for deciding whether an integer may be replaced. */
const PREV_NONE = 0;
const PREV_OPERATOR_OR_COMMA = 1;
const PREV_OTHER = 2;

/**
 * The shape of `sql` when no finding is possible in it, or null when it must be parsed (a
 * word of the vocabulary, or something the screen cannot read with certainty).
 */
export function screenStatement(sql: string): string | null {
  const n = sql.length;
  let shape = '';
  let copied = 0;
  let leading = true;
  let prev = PREV_NONE;
  /** An integer that may be replaced if a comma follows it. */
  let pendingStart = -1;
  let pendingEnd = -1;
  let i = 0;
  const replace = (start: number, end: number, mark: string): void => {
    shape += sql.slice(copied, start) + mark;
    copied = end;
  };
  /** Called at every significant token: settles a pending integer. */
  const significant = (isComma: boolean): void => {
    if (pendingStart >= 0 && isComma) replace(pendingStart, pendingEnd, NUMBER_MARK);
    pendingStart = -1;
  };
  while (i < n) {
    const c = sql.charCodeAt(i);
    if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) {
      i++;
      continue;
    }
    if (c === 0) return null;
    // Comments: `--` to the end of the line, `/* ... */` nested as PostgreSQL nests them.
    if (c === 0x2d && sql.charCodeAt(i + 1) === 0x2d) {
      i += 2;
      while (i < n && sql.charCodeAt(i) !== 0x0a && sql.charCodeAt(i) !== 0x0d) i++;
      continue;
    }
    if (c === 0x2f && sql.charCodeAt(i + 1) === 0x2a) {
      const end = blockCommentEnd(sql, i);
      if (end < 0) return null;
      i = end;
      continue;
    }
    if (isIdentStart(c)) {
      const next = sql.charCodeAt(i + 1);
      // U&'...' and U&"...": Unicode escapes could spell any word.
      if ((c === 0x55 || c === 0x75) && next === 0x26) {
        const after = sql.charCodeAt(i + 2);
        if (after === 0x27 || after === 0x22) return null;
      }
      // A one-letter prefix glued to a quote: E'' (backslash escapes), B'', X'', N''.
      if (next === 0x27 && isStringPrefix(c)) {
        significant(false);
        const end = c === 0x45 || c === 0x65 ? escapeStringEnd(sql, i + 2) : plainStringEnd(sql, i + 2);
        if (end < 0) return null;
        i = end;
        leading = false;
        prev = PREV_OTHER;
        continue;
      }
      let end = i + 1;
      while (end < n && isIdentCont(sql.charCodeAt(end))) end++;
      significant(false);
      if (isTriggerWord(sql, i, end, leading)) return null;
      i = end;
      leading = false;
      prev = PREV_OTHER;
      continue;
    }
    if (c === 0x27) {
      const end = plainStringEnd(sql, i + 1);
      if (end < 0) return null;
      significant(false);
      replace(i, end, STRING_MARK);
      i = end;
      leading = false;
      prev = PREV_OTHER;
      continue;
    }
    if (c === 0x22) {
      const end = quotedIdentEnd(sql, i + 1);
      if (end < 0) return null;
      significant(false);
      // Read in place unless a doubled quote makes the name differ from its spelling.
      if (sql.indexOf('"', i + 1) === end - 1) {
        if (isTriggerWord(sql, i + 1, end - 1, false)) return null;
      } else {
        const word = sql.slice(i + 1, end - 1).replaceAll('""', '"');
        if (isTriggerWord(word, 0, word.length, false)) return null;
      }
      i = end;
      leading = false;
      prev = PREV_OTHER;
      continue;
    }
    if (c === 0x24) {
      significant(false);
      const end = dollarEnd(sql, i);
      if (end < 0) return null;
      i = end;
      leading = false;
      prev = PREV_OTHER;
      continue;
    }
    if (isDigit(c) || (c === 0x2e && isDigit(sql.charCodeAt(i + 1)))) {
      let end = i;
      while (end < n && isDigit(sql.charCodeAt(end))) end++;
      const plain = c !== 0x2e && end - i <= 9 && !isNumberCont(sql.charCodeAt(end)) && !gluedBefore(sql, i);
      significant(false);
      if (plain) {
        if (prev === PREV_OPERATOR_OR_COMMA) replace(i, end, NUMBER_MARK);
        else {
          pendingStart = i;
          pendingEnd = end;
        }
      }
      // Anything glued to the digits (1.5, 1e5, 0x1F, 12abc) is read on as ordinary tokens:
      // kept as written, and any word in it still checked.
      i = end === i ? i + 1 : end;
      leading = false;
      prev = PREV_OTHER;
      continue;
    }
    const isComma = c === 0x2c;
    significant(isComma);
    if (c === 0x3b) {
      leading = true;
      prev = PREV_NONE;
    } else {
      leading = false;
      prev = isComma || isOperatorChar(c) ? PREV_OPERATOR_OR_COMMA : PREV_OTHER;
    }
    i++;
  }
  return shape + sql.slice(copied);
}

function isTriggerWord(text: string, start: number, end: number, leading: boolean): boolean {
  const length = end - start;
  const first = text.charCodeAt(start) | 0x20;
  // `pg_temp`, `pg_temp_3`: a relation there is temporary.
  if (length >= TEMP_SCHEMA_PREFIX.length && first === 0x70 && sameWord(text, start, TEMP_SCHEMA_PREFIX)) return true;
  const candidates = WORDS_BY_LENGTH[length];
  if (candidates === undefined) return false;
  for (const c of candidates) if ((c.anywhere || leading) && sameWord(text, start, c.word)) return true;
  return false;
}

/** The vocabulary's words by length, so a word is compared in place with the few it could be. */
const WORDS_BY_LENGTH: Array<Array<{ word: string; anywhere: boolean }> | undefined> = [];
for (const word of new Set([...ANYWHERE_WORDS, ...LEADING_WORDS]))
  (WORDS_BY_LENGTH[word.length] ??= []).push({ word, anywhere: ANYWHERE_WORDS.has(word) });

/**
 * Whether `text` at `start` spells `word` (lower-case ASCII) in any case. Compared in place:
 * slicing and lower-casing every identifier of an ORM's statements was most of the screen's
 * cost. A non-ASCII character takes the old way (toLowerCase), which reads the Kelvin sign as
 * `k`: more cautious than PostgreSQL, which folds only ASCII, and exactly what the screen did.
 */
function sameWord(text: string, start: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) {
    const c = text.charCodeAt(start + k);
    if (c >= 0x80) return text.slice(start, start + word.length).toLowerCase() === word;
    if (c !== word.charCodeAt(k) && !(c >= 0x41 && c <= 0x5a && c + 0x20 === word.charCodeAt(k))) return false;
  }
  return true;
}

/** After the closing quote of a standard string whose body starts at `i`; -1 if unterminated. */
function plainStringEnd(sql: string, i: number): number {
  for (;;) {
    const q = sql.indexOf("'", i);
    if (q < 0) return -1;
    if (sql.charCodeAt(q + 1) !== 0x27) return q + 1;
    i = q + 2;
  }
}

/** As {@link plainStringEnd} for an E'' string: a backslash escapes the next character. */
function escapeStringEnd(sql: string, i: number): number {
  const n = sql.length;
  while (i < n) {
    const c = sql.charCodeAt(i);
    if (c === 0x5c) i += 2;
    else if (c === 0x27) {
      if (sql.charCodeAt(i + 1) !== 0x27) return i + 1;
      i += 2;
    } else i++;
  }
  return -1;
}

function quotedIdentEnd(sql: string, i: number): number {
  for (;;) {
    const q = sql.indexOf('"', i);
    if (q < 0) return -1;
    if (sql.charCodeAt(q + 1) !== 0x22) return q + 1;
    i = q + 2;
  }
}

/** After the `*\/` closing the comment opened at `i` (comments nest); -1 if unterminated. */
function blockCommentEnd(sql: string, i: number): number {
  let depth = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql.charCodeAt(i);
    if (c === 0x2f && sql.charCodeAt(i + 1) === 0x2a) {
      depth++;
      i += 2;
    } else if (c === 0x2a && sql.charCodeAt(i + 1) === 0x2f) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return -1;
}

/**
 * At a `$`: a parameter `$12`, or a dollar-quoted string `$tag$ ... $tag$` (skipped whole), or
 * a lone `$` (kept; the parser will say what it is). -1 for an unterminated dollar quote.
 */
function dollarEnd(sql: string, i: number): number {
  const n = sql.length;
  let j = i + 1;
  if (isDigit(sql.charCodeAt(j))) {
    while (j < n && isDigit(sql.charCodeAt(j))) j++;
    return j;
  }
  if (j < n && sql.charCodeAt(j) !== 0x24) {
    if (!isIdentStart(sql.charCodeAt(j))) return j;
    while (j < n && isIdentStart(sql.charCodeAt(j))) j++;
    while (j < n && (isIdentStart(sql.charCodeAt(j)) || isDigit(sql.charCodeAt(j)))) j++;
    if (sql.charCodeAt(j) !== 0x24) return i + 1;
  }
  if (j >= n) return i + 1;
  const tag = sql.slice(i, j + 1);
  const close = sql.indexOf(tag, j + 1);
  return close < 0 ? -1 : close + tag.length;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Letters, `_` and every non-ASCII character, as PostgreSQL's `ident_start` (bytes >= 0x80). */
function isIdentStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c >= 0x80;
}

function isIdentCont(c: number): boolean {
  return isIdentStart(c) || isDigit(c) || c === 0x24;
}

/** A character that makes the digits before it something other than a plain integer. */
function isNumberCont(c: number): boolean {
  return isIdentCont(c) || c === 0x2e;
}

/** e E b B x X n N: the letters PostgreSQL reads as a string's prefix. */
function isStringPrefix(c: number): boolean {
  const l = c | 0x20;
  return l === 0x65 || l === 0x62 || l === 0x78 || l === 0x6e;
}

/** PostgreSQL's operator characters (scan.l `op_chars`). */
const OPERATOR_CHARS = new Uint8Array(128);
for (const ch of '+-*/<>=~!@#%^&|`?') OPERATOR_CHARS[ch.charCodeAt(0)] = 1;

function isOperatorChar(c: number): boolean {
  return c < 128 && OPERATOR_CHARS[c] === 1;
}

/**
 * Digits glued to what comes before them are part of a larger token (`1.5`, `1e-5`, `x1`):
 * never replaced, whatever follows.
 */
function gluedBefore(sql: string, i: number): boolean {
  if (i === 0) return false;
  const p = sql.charCodeAt(i - 1);
  if (p === 0x2e || isIdentCont(p)) return true;
  return (p === 0x2b || p === 0x2d) && i >= 2 && (sql.charCodeAt(i - 2) | 0x20) === 0x65;
}
