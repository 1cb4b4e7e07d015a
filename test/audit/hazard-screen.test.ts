/**
 * The hazard screen never hides a finding. Every statement of the labelled corpus, the audit
 * bench's mix and a set of generated hard cases (the vocabulary's words inside identifiers,
 * strings, comments, dollar quotes, E'' strings, Unicode escapes, quoted identifiers, PL/pgSQL
 * bodies, in every case) is classified twice, with the screen and without it: the answers must
 * be identical, text by text, and no text the screen passes may hold a finding or fail to parse
 * where another text of its shape parsed clean. A control screen that passes everything must be
 * caught by the same comparison, and the real screen must pass the bench's ORM texts (a screen
 * that sent everything to the parser would be sound and useless).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { screenStatement } from '../../audit/hazard-screen.js';
import { ANYWHERE_WORDS, LEADING_WORDS } from '../../audit/screen-vocabulary.js';
import { loadParser, parseStatements } from '../../common/sql-parser.js';
import { StatementClassifier } from '../../audit/statement-classifier.js';
import { statementFromMessage } from '../../audit/log-message.js';
import { inlined, MULTI_LINE, REPEATED } from '../../bench/audit-log-mix.js';
import { DRIVER_LOG } from './corpus/driver-log.js';

const CORPUS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'corpus');

beforeAll(() => loadParser());

/** Whole files and each of their statements (split by the parser, as a log would send them). */
function corpusTexts(): string[] {
  const out: string[] = [];
  for (const name of readdirSync(CORPUS).filter((f) => f.endsWith('.sql'))) {
    const text = readFileSync(path.join(CORPUS, name), 'utf8');
    out.push(text, ...parseStatements(text).map((s) => s.text.trim()));
  }
  for (const [line] of DRIVER_LOG) {
    const sep = line.indexOf(':  ');
    const found = sep < 0 ? null : statementFromMessage(line.slice(sep + 3));
    if (found !== null) out.push(found.text);
  }
  return out;
}

function benchTexts(): string[] {
  const out = [...REPEATED, MULTI_LINE];
  for (let i = 0; i < 300; i++) out.push(inlined(i));
  return out;
}

function caseVariants(word: string): string[] {
  const mixed = [...word].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c)).join('');
  return [word, word.toUpperCase(), mixed];
}

/**
 * The vocabulary's words where they count and where they do not. Function names are called;
 * other words start or sit in a statement. Every template is a text PostgreSQL may see.
 */
function hardCases(): string[] {
  const out: string[] = [];
  const words = [...new Set([...ANYWHERE_WORDS, ...LEADING_WORDS])];
  // Lower case everywhere; upper and mixed case on the templates where the word is live.
  const variants = words.flatMap((w) => caseVariants(w).map((v, i) => ({ w: v, all: i === 0 })));
  for (const { w, all } of variants) {
    if (!all) {
      out.push(
        `SELECT ${w}(1)`,
        `SELECT "${w}"(1)`,
        `${w} x = 1`,
        `${w} ALL`,
        `CREATE ${w} TABLE x (a int)`,
        `${w} p(1)`,
      );
      continue;
    }
    {
      out.push(
        // Inside identifiers and strings, around a real call, as the statement's first word.
        `SELECT ${w}_x, x_${w}, "${w}x" FROM t`,
        `SELECT ${w}(1)`,
        `SELECT pg_catalog.${w}(1)`,
        `SELECT "${w}"(1)`,
        `SELECT "${w.toLowerCase()}"(1)`,
        `SELECT 1 AS "${w}"`,
        `SELECT "a""${w}"""`,
        `SELECT '${w}(1)'`,
        `SELECT 'it''s ${w}(1)'`,
        `SELECT 'a\\', ${w}(1) --'`,
        `SELECT E'\\' ${w}(1) '`,
        `SELECT E'\\'', ${w}(1)`,
        `SELECT E'\\'', ${w}(1), E'\\''`,
        `SELECT e'${w}(1)', E'\\\\', ${w}(2)`,
        `SELECT U&'${w}(1)'`,
        `SELECT U&"\\0070g_advisory_lock"(1)`,
        `SELECT U&"${w}"(1)`,
        `SELECT 1 -- ${w}(1)\n`,
        `SELECT 1 -- x\n, ${w}(1)`,
        `/* ${w}(1) */ SELECT 1`,
        `/* /* nested */ ${w}(1) */ SELECT 1`,
        `/* /* nested */ */ SELECT ${w}(1)`,
        `SELECT $$ ${w}(1) $$`,
        `SELECT $a$ $$ ${w}(1) $a$`,
        `SELECT $a$x$a$, ${w}(1)`,
        `SELECT $1, ${w}(1)`,
        `SELECT x$${w}(1)`,
        `${w} x`,
        `${w} ALL`,
        `${w} x = 1`,
        `${w} x TO 'y'`,
        `/* c */ ${w} ROLE NONE`,
        `SELECT 1; ${w} x = 2`,
        `SELECT 1;\n-- c\n${w} x = 2`,
        `UPDATE t SET a = 1 WHERE ${w} = 2`,
        `INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING`,
        `${w} $$BEGIN PERFORM pg_advisory_lock(1); END$$`,
        `DO $$BEGIN PERFORM ${w}(1); END$$`,
        `DO $b$BEGIN EXECUTE '${w} x'; END$b$`,
        `CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$BEGIN PERFORM ${w}(1); END$$`,
        `CREATE TABLE ${w} (a int)`,
        `CREATE ${w} TABLE x (a int)`,
        `SELECT 1 INTO ${w} x`,
        `DECLARE c CURSOR WITH ${w} FOR SELECT 1`,
        `EXPLAIN ANALYZE DECLARE c CURSOR WITH ${w} FOR SELECT 1`,
        `${w} p AS SELECT 1`,
        `${w} p(1, 'x')`,
        `${w} ALL`,
      );
    }
  }
  out.push(
    'CREATE TABLE pg_temp.t (a int)',
    'CREATE TABLE "pg_temp".t (a int)',
    'CREATE TABLE pg_temp_3.t (a int)',
    'CREATE TABLE PG_TEMP.t (a int)',
    'SELECT 1 INTO TEMPORARY t',
    "SELECT set_config('app.a', '1', false)",
    "SELECT nextval('s'), currval('s')",
    "SELECT nextval('s'), currval('t')",
    'SET LOCAL x = 1',
    'BEGIN; SET x = 1; COMMIT',
    "DO 'BEGIN PERFORM pg_advisory_lock(1); END'",
    'do language plpgsql $$BEGIN LISTEN x; END$$',
    'SELECT 1::float(0)',
    'SELECT 1::float(10)',
    'SELECT 1::float(54)',
    'SELECT x FROM t WHERE a IN (1, 2, 3) AND b = 4',
    'SELECT x FROM t WHERE a IN (1, 2147483648, 99999999999)',
    'SELECT 1.5, .5, 1e-5, 1e+5, 0x1F, 1_000, 12abc',
    "SELECT 'a'\n'b'",
    "SELECT 'a' 'b'",
    "SELECT 'unterminated",
    'SELECT "unterminated',
    'SELECT $$unterminated',
    'SELECT /* unterminated',
    'SELECT 1; ; SELECT 2;;',
    '',
    ';',
    '-- only a comment',
    'SELEC 1',
    "SELECT E'\\u00zz'",
    "SELECT B'102', X'1G'",
    "SELECT N'x', n'y'",
    'SELECT * FROM "products" WHERE "id" = 1 LIMIT 20',
    'SELECT * FROM "products" WHERE "id" = 2 LIMIT 20',
  );
  return out;
}

/** Texts whose answer differs with `screen` from the parser's own, in order, caches shared. */
function misses(texts: readonly string[], screened: StatementClassifier): string[] {
  const full = new StatementClassifier({ screen: false });
  return texts.filter((t) => JSON.stringify(screened.classify(t)) !== JSON.stringify(full.classify(t)));
}

/**
 * Every text, then the texts the screen passes once more with other values (the same shape):
 * the later texts of a shape are the ones answered without the parser.
 */
function withVariants(texts: readonly string[]): string[] {
  const other = (t: string): string => t.replace(/\b\d{1,9}\b/g, (d) => String(Number(d) + 7)).replace(/'x'/g, "'y'");
  const passed = texts.filter((t) => screenStatement(t) !== null);
  return [...texts, ...passed.map(other), ...passed];
}

describe('the hazard screen', () => {
  let texts: string[] = [];
  beforeAll(() => {
    texts = withVariants([...corpusTexts(), ...benchTexts(), ...hardCases()]);
  });

  test('answers every text of the corpus, the bench mix and the hard cases as the parser does', () => {
    expect(texts.length).toBeGreaterThan(1500);
    expect(misses(texts, new StatementClassifier())).toEqual([]);
  });

  test('passes no text that holds a finding; the hard cases hold findings and pass clean texts', () => {
    const full = new StatementClassifier({ screen: false });
    const hard = hardCases();
    const findings = hard.filter((t) => {
      const result = full.classify(t);
      return result.ok && result.notable.length > 0;
    });
    const passed = hard.filter((t) => screenStatement(t) !== null);
    expect(findings.filter((t) => screenStatement(t) !== null)).toEqual([]);
    // Not vacuous: many cases are findings, and many clean ones (words in strings, comments,
    // identifiers, dollar quotes) do pass.
    expect(findings.length).toBeGreaterThan(200);
    expect(passed.length).toBeGreaterThan(200);
  });

  test('control: a screen that passes everything is caught by the comparison', () => {
    // Every text one shape: after the first clean parse, everything is "clean".
    const blind = new StatementClassifier({ screen: () => 'one shape' });
    const texts = ['SELECT 1', 'SELECT pg_advisory_lock(1)', 'LISTEN x', 'SELECT 2'];
    expect(misses(texts, blind)).toEqual(['SELECT pg_advisory_lock(1)', 'LISTEN x']);
  });

  test("passes the bench's ORM texts without the parser", () => {
    const classifier = new StatementClassifier();
    for (let i = 0; i < 300; i++) classifier.classify(inlined(i));
    expect(classifier.screenedTexts).toBeGreaterThanOrEqual(297);
  });

  test('reads words in place as lower-casing them did: any ASCII case, quoted names, the Kelvin sign', () => {
    // Words are compared where they stand (no slice, no toLowerCase) unless a character is not
    // ASCII or a quoted name doubles a quote; each way must stop what the old comparison stopped.
    const stopped = [
      'SELECT PG_Advisory_Lock(1)',
      'SELECT "pg_advisory_lock"(1)',
      'SELECT * FROM Pg_Temp_3.t',
      'sEt search_path = x',
      // U+212A lower-cases to `k`: PostgreSQL would not fold it, the screen stays cautious.
      'SELECT pg_advisory_loc\u212A(1)',
    ];
    const passed = [
      'SELECT pg_advisory_lockx(1)',
      'SELECT "pg_advisory""lock"(1)',
      'SELECT "tempo" FROM t',
      'SELECT ☃set',
    ];
    expect(stopped.filter((t) => screenStatement(t) !== null)).toEqual([]);
    expect(passed.filter((t) => screenStatement(t) === null)).toEqual([]);
  });
});
