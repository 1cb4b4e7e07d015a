/**
 * Classifies statement texts with a cache keyed by the exact text. Workloads repeat themselves
 * (drivers log `$1` placeholders), so most texts of a large log are answered from the cache.
 * Texts that do not repeat (an ORM's statements with their values inline) go through the hazard
 * screen (hazard-screen.ts): a text that cannot hold a finding is answered from the first text
 * of its shape, and only that first one reaches the parser.
 */
import { copyTrafficOf } from './protocol-traffic.js';
import { nodeType } from '../common/ast-json.js';
import { BoundedCache } from '../common/bounded-cache.js';
import { analyzeStatement } from './classify-statement.js';
import type { AuditCheckId, Hazard } from './audit-types.js';
import { screenStatement } from './hazard-screen.js';
import { charOffset, normalizeStatement, parseStatements, scanTokens, SqlParseFailure } from '../common/sql-parser.js';

/** A statement of a text that needs reporting: it has hazards, or could not be analysed. */
export interface NotablePart {
  text: string;
  /** Character offset of the statement in the classified text. */
  offset: number;
  hazards: Hazard[];
  /** Grouping key for findings (the parser's normalized form). */
  normalized: string;
  problem: string | null;
  /** COPY FROM STDIN / TO STDOUT: traffic a protocol check concerns (protocol-traffic.ts). */
  traffic?: 'copy-in' | 'copy-out';
  /** How the collector counts it, worked out at its first count (audit-collector.ts). */
  plan?: CountingPlan;
}

/** A notable part's hazards as the collector files them. */
export interface CountingPlan {
  primary: Hazard | undefined;
  also: AuditCheckId[];
  cleanup: Hazard[];
  findingKey: string;
  cleanupKey: string;
}

/** What a text (one or more statements) turned out to be. */
export type TextClassification =
  { ok: true; statements: number; notable: NotablePart[] } | { ok: false; error: string; position: number };

/**
 * Sizes chosen so the cache stays within a few tens of MB whatever the input. An application's
 * repeated statement shapes number in the hundreds or thousands, and least-recently-used
 * eviction keeps them while one-off texts with inlined values pass through.
 */
const CACHE_ENTRIES = 20_000;
const CACHE_KEY_CHARS = 16 * 1024 * 1024;
const CACHE_KEY_LENGTH = 64 * 1024;
/** Shapes are fewer than texts (one per statement template): a smaller cache holds them. */
const SHAPE_ENTRIES = 5_000;
const SHAPE_KEY_CHARS = 4 * 1024 * 1024;

/** A shape whose first text parsed with a finding or an error: every text of it is parsed. */
const PARSE_EACH = -1;

/** How the classifier works: the screen is on unless a test compares with it off or replaces it. */
export interface ClassifierOptions {
  screen?: false | ((sql: string) => string | null);
}

/** Parses and classifies statement texts, once per distinct text while it stays cached. */
export class StatementClassifier {
  private readonly cache = new BoundedCache<TextClassification>(CACHE_ENTRIES, CACHE_KEY_CHARS, CACHE_KEY_LENGTH);
  /** Statement count of a shape whose first text parsed clean, or PARSE_EACH. */
  private readonly shapes = new BoundedCache<number>(SHAPE_ENTRIES, SHAPE_KEY_CHARS, CACHE_KEY_LENGTH);
  private readonly screen: ((sql: string) => string | null) | null;
  /**
   * Texts classified afresh (misses of the text cache), whether the parser or the screen
   * answered: the report's `parsedTexts`, unchanged in meaning by the screen.
   */
  parsedTexts = 0;
  /** Of those, texts the screen answered without the parser (for the bench). */
  screenedTexts = 0;

  constructor(options: ClassifierOptions = {}) {
    this.screen = options.screen === false ? null : (options.screen ?? screenStatement);
  }

  classify(sql: string): TextClassification {
    const cached = this.cache.get(sql);
    if (cached !== undefined) return cached;
    const result = this.classifyFresh(sql);
    this.parsedTexts++;
    this.cache.set(sql, result);
    return result;
  }

  private classifyFresh(sql: string): TextClassification {
    const shape = this.screen !== null && sql !== '' ? this.screen(sql) : null;
    if (shape === null) return this.classifyUncached(sql);
    const known = this.shapes.get(shape);
    if (known !== undefined && known !== PARSE_EACH) {
      this.screenedTexts++;
      return { ok: true, statements: known, notable: [] };
    }
    const result = this.classifyUncached(sql);
    // Only a clean parse vouches for its shape. A finding here would mean the screen let
    // through a text that holds one; the shape then never skips the parser.
    if (known === undefined)
      this.shapes.set(shape, result.ok && result.notable.length === 0 ? result.statements : PARSE_EACH);
    return result;
  }

  private classifyUncached(sql: string): TextClassification {
    // The parser refuses an empty string; PostgreSQL logs one for an empty query.
    if (sql === '') return { ok: true, statements: 0, notable: [] };
    let parsed: ReturnType<typeof parseStatements>;
    try {
      parsed = parseStatements(sql);
    } catch (error) {
      if (error instanceof SqlParseFailure) return { ok: false, error: error.message, position: error.position };
      throw error;
    }
    const notable: NotablePart[] = [];
    for (const stmt of parsed) {
      const analysis = analyzeStatement(stmt.node, stmt.text);
      const traffic = copyTrafficOf(stmt.node);
      if (analysis.hazards.length === 0 && analysis.problem === null && traffic === null) continue;
      // Reports show the statement from its first token: leading comments are not the statement.
      const skip = firstTokenOffset(stmt.text);
      const text = stmt.text.slice(skip).trimEnd();
      // The normalizer turns a DO block's whole body into one `$1`: keep its text instead.
      const normalized =
        analysis.hazards.length > 0 && nodeType(stmt.node) !== 'DoStmt' ? normalizeStatement(text) : text;
      notable.push({
        text,
        offset: stmt.offset + skip,
        hazards: analysis.hazards,
        normalized,
        problem: analysis.problem,
        ...(traffic !== null ? { traffic } : {}),
      });
    }
    return { ok: true, statements: parsed.length, notable };
  }
}

/** Character offset of the first token (after blanks and comments), by PostgreSQL's lexer. */
function firstTokenOffset(sql: string): number {
  const first = scanTokens(sql)?.[0];
  return first === undefined ? sql.length - sql.trimStart().length : charOffset(sql, first.start);
}
