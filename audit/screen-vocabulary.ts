/**
 * The words without which no statement can be a finding, derived from the claims vocabulary
 * (engine/record/audit-claims.ts) and from what the classifiers in this folder read. The hazard screen
 * (hazard-screen.ts) lets a text skip the parser only when it holds none of them.
 *
 * Two kinds of word:
 * - `anywhere`: a hazard can hang on the word wherever it stands (a function name in any
 *   expression, `TEMP` in `SELECT ... INTO TEMP`, `HOLD` in `EXPLAIN ANALYZE DECLARE ...`);
 * - `leading`: the word makes a hazard only as a statement's first word. `SET` and `RESET` are
 *   findings only as statements of their own (the `SET` of an UPDATE, of ALTER ROLE or of a
 *   function definition sets nothing now), and `DO` is a block only at the start (`ON CONFLICT
 *   DO NOTHING` is not one). Both are words every ORM writes, so treating them as `anywhere`
 *   would send nearly every UPDATE and upsert to the parser.
 *
 * Words are compared in lower case with identifiers and keywords as PostgreSQL reads them, and
 * with the contents of quoted identifiers too (`"pg_advisory_lock"(1)` is the built-in).
 */
import { CLEANUP_FUNCTIONS, STATE_FUNCTIONS, type StatementKind } from '../engine/record/audit-claims.js';

interface KindWords {
  anywhere?: readonly string[];
  leading?: readonly string[];
}

/**
 * Per statement kind of the vocabulary, the words its classifier needs to see. A `Record` over
 * the kinds: a kind added to the vocabulary without its words here does not compile.
 */
const STATEMENT_KIND_WORDS: Record<StatementKind, KindWords> = {
  LISTEN: { anywhere: ['listen'] },
  UNLISTEN: { anywhere: ['unlisten'] },
  PREPARE: { anywhere: ['prepare'] },
  EXECUTE: { anywhere: ['execute'] },
  DEALLOCATE: { anywhere: ['deallocate'] },
  'DECLARE WITH HOLD': { anywhere: ['hold'] },
  // relpersistence 't' comes from TEMP / TEMPORARY; a relation in pg_temp is temporary too
  // (the schema prefix is matched separately: see TEMP_SCHEMA_PREFIX).
  'CREATE TEMP': { anywhere: ['temp', 'temporary'] },
  'DISCARD TEMP': { anywhere: ['discard'] },
  'DISCARD SEQUENCES': { anywhere: ['discard'] },
  'RESET ALL': { leading: ['reset'] },
  'SET ROLE NONE': { leading: ['set'] },
  // Found in log lines (execute S_1: ...), never in a statement's text.
  'protocol named statement': {},
};

/** Identifiers starting with this name a temporary schema (`pg_temp`, `pg_temp_3`). */
export const TEMP_SCHEMA_PREFIX = 'pg_temp';

/**
 * Words outside the statement-kind vocabulary: settings are claimed through `SET` / `RESET`
 * statements (VariableSetStmt, set-statement.ts) and `set_config()` (function-calls.ts); a `DO`
 * block is read by plpgsql-body.ts whatever it contains.
 */
const SETTING_WORDS: KindWords = { anywhere: ['set_config'], leading: ['set', 'reset'] };
const DO_BLOCK_WORDS: KindWords = { leading: ['do'] };
/** COPY FROM STDIN / TO STDOUT: traffic the protocol checks concern (protocol-traffic.ts). */
const TRAFFIC_WORDS: KindWords = { leading: ['copy'] };

/**
 * Function calls that make a finding: the state and cleanup halves. The setup half (`nextval`)
 * is never a finding on its own; it only takes a finding away, so a text without any state or
 * cleanup name cannot gain one from it.
 */
const FUNCTION_WORDS: KindWords = { anywhere: [...STATE_FUNCTIONS, ...CLEANUP_FUNCTIONS] };

function gather(key: 'anywhere' | 'leading'): ReadonlySet<string> {
  const all = [...Object.values(STATEMENT_KIND_WORDS), SETTING_WORDS, DO_BLOCK_WORDS, FUNCTION_WORDS, TRAFFIC_WORDS];
  return new Set(all.flatMap((w) => w[key] ?? []));
}

/** Words that can make a finding wherever they stand. */
export const ANYWHERE_WORDS = gather('anywhere');
/** Words that can make a finding as the first word of a statement. */
export const LEADING_WORDS = gather('leading');
