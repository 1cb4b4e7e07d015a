/**
 * One parsed statement in, its session-state hazards out (primary first). The statement's own
 * kind (SET, LISTEN, PREPARE, DECLARE ... WITH HOLD, CREATE TEMP) decides first; function calls
 * found in the expressions it evaluates follow, most important first. This module reads the
 * parser's tree; the check a recognised kind depends on is the one claiming it (statementHazard).
 *
 * Expressions are walked only in statements that evaluate them now. DDL that stores an
 * expression for later (CREATE FUNCTION bodies and SET clauses, views, defaults, rules) does
 * not take a lock or set anything when it runs, so it is not a finding; neither is plain
 * EXPLAIN, which plans without executing.
 */
import { asNode, booleanOf, child, constantOf, list, nodeType, text } from '../common/ast-json.js';
import { AUDIT_CHECK_IDS, checkPriority } from './audit-knowledge.js';
import type { AuditCheckId, Hazard, StatementAnalysis } from './audit-types.js';
import { functionCallHazards } from './function-calls.js';
import { doBlockHazards } from './plpgsql-body.js';
import { setStatementHazard } from './set-statement.js';
import { statementHazard } from './statement-hazard.js';
import type { AstNode } from '../common/sql-parser.js';
import { isTempRelation } from '../common/temp-relation.js';

/** DECLARE's options bitmask: CURSOR_OPT_HOLD in PostgreSQL's parsenodes.h. */
const CURSOR_OPT_HOLD = 0x20;

/** Statement kinds whose expressions run when the statement runs. */
const EVALUATING = new Set([
  'SelectStmt',
  'InsertStmt',
  'UpdateStmt',
  'DeleteStmt',
  'MergeStmt',
  'CallStmt',
  'CopyStmt',
  'ExecuteStmt',
  'DeclareCursorStmt',
  'PrepareStmt',
]);

/**
 * Classifies one statement. `text` is the statement's SQL (needed for DO blocks, whose body the
 * PL/pgSQL parser reads from the text). `depth` bounds nesting through DO and EXECUTE.
 */
export function analyzeStatement(wrapper: AstNode, sql: string, depth = 0): StatementAnalysis {
  const type = nodeType(wrapper);
  const stmt = type === null ? null : child(wrapper, type);
  if (type === null || stmt === null) return { hazards: [], problem: null };
  const own: Hazard[] = [];
  let expressions: Hazard[] = [];
  let problem: string | null = null;
  switch (type) {
    case 'VariableSetStmt': {
      const hazard = setStatementHazard(stmt);
      if (hazard !== null) own.push(hazard);
      break;
    }
    case 'ListenStmt':
      own.push(statementHazard('LISTEN', `LISTEN ${text(stmt, 'conditionname') ?? ''}`.trim()));
      break;
    case 'PrepareStmt':
      own.push(statementHazard('PREPARE', `PREPARE ${text(stmt, 'name') ?? ''}`.trim()));
      break;
    case 'ExecuteStmt':
      own.push(statementHazard('EXECUTE', `EXECUTE ${text(stmt, 'name') ?? ''}`.trim()));
      break;
    case 'DeallocateStmt':
      // The cleanup half of PREPARE: it removes state, so on its own it breaks nothing.
      own.push(
        statementHazard(
          'DEALLOCATE',
          stmt['isall'] === true ? 'DEALLOCATE ALL' : `DEALLOCATE ${text(stmt, 'name') ?? ''}`.trim(),
        ),
      );
      break;
    case 'UnlistenStmt':
      own.push(statementHazard('UNLISTEN', `UNLISTEN ${text(stmt, 'conditionname') ?? '*'}`));
      break;
    case 'DiscardStmt':
      own.push(...discardCleanups(text(stmt, 'target')));
      break;
    case 'DeclareCursorStmt': {
      const options = typeof stmt['options'] === 'number' ? stmt['options'] : 0;
      if ((options & CURSOR_OPT_HOLD) !== 0)
        own.push(statementHazard('DECLARE WITH HOLD', `DECLARE ${text(stmt, 'portalname') ?? ''} CURSOR WITH HOLD`));
      break;
    }
    case 'CreateStmt':
      if (isTempRelation(child(stmt, 'relation')) && text(stmt, 'oncommit') !== 'ONCOMMIT_DROP')
        own.push(tempHazard('CREATE TEMP TABLE', child(stmt, 'relation')));
      break;
    case 'CreateTableAsStmt': {
      const into = child(stmt, 'into');
      if (isTempRelation(child(into, 'rel')) && text(into, 'onCommit') !== 'ONCOMMIT_DROP')
        own.push(tempHazard('CREATE TEMP TABLE AS', child(into, 'rel')));
      // WITH NO DATA creates the table without running the query.
      if (into?.['skipData'] !== true) expressions = functionCallHazards(stmt['query']);
      break;
    }
    case 'ViewStmt':
      if (isTempRelation(child(stmt, 'view'))) own.push(tempHazard('CREATE TEMP VIEW', child(stmt, 'view')));
      break;
    case 'CreateSeqStmt':
      if (isTempRelation(child(stmt, 'sequence')))
        own.push(tempHazard('CREATE TEMP SEQUENCE', child(stmt, 'sequence')));
      break;
    case 'ExplainStmt':
      if (explainExecutes(stmt)) {
        const inner = asNode(stmt['query']);
        if (inner !== null) return analyzeStatement(inner, sql, depth + 1);
      }
      break;
    case 'DoStmt': {
      // Ranked like expression hazards: the block's order of statements says nothing.
      const result = doBlockHazards(stmt, sql, depth, analyzeStatement);
      expressions = result.hazards;
      problem = result.problem;
      break;
    }
    default:
      break;
  }
  if (type === 'SelectStmt') {
    const into = child(stmt, 'intoClause');
    if (isTempRelation(child(into, 'rel')) && text(into, 'onCommit') !== 'ONCOMMIT_DROP')
      own.push(tempHazard('SELECT INTO TEMP', child(into, 'rel')));
  }
  if (EVALUATING.has(type)) expressions = functionCallHazards(stmt);
  return { hazards: orderHazards(own, expressions), problem };
}

/**
 * Own hazards first, then expression hazards by priority; one per check. A check that the same
 * statement both sets and cleans up (`SELECT pg_advisory_unlock(1), pg_advisory_lock(2)`) keeps
 * the hazard: the statement still leaves state behind.
 */
function orderHazards(own: Hazard[], expressions: Hazard[]): Hazard[] {
  const sorted = [...expressions].sort((a, b) => checkPriority(a.check) - checkPriority(b.check));
  const all = [...own, ...sorted];
  const breaking = new Set(all.filter((h) => h.cleanup !== true).map((h) => h.check));
  const seen = new Set<string>();
  const out: Hazard[] = [];
  for (const hazard of all) {
    if (seen.has(hazard.check) || (hazard.cleanup === true && breaking.has(hazard.check))) continue;
    seen.add(hazard.check);
    out.push(hazard);
  }
  return out;
}

/** Checks whose state `DISCARD ALL` removes: every piece of session state the audit knows. */
const DISCARD_ALL_UNDOES: readonly AuditCheckId[] = AUDIT_CHECK_IDS;

/** `DISCARD ALL | TEMP | SEQUENCES` as cleanup hazards; `DISCARD PLANS` drops only cached plans. */
function discardCleanups(target: string | null): Hazard[] {
  if (target === 'DISCARD_ALL')
    return DISCARD_ALL_UNDOES.map((check) => ({ check, what: 'DISCARD ALL', certain: true, cleanup: true }));
  if (target === 'DISCARD_TEMP') return [statementHazard('DISCARD TEMP', 'DISCARD TEMP')];
  if (target === 'DISCARD_SEQUENCES') return [statementHazard('DISCARD SEQUENCES', 'DISCARD SEQUENCES')];
  return [];
}

function tempHazard(what: string, rangeVar: AstNode | null): Hazard {
  return statementHazard('CREATE TEMP', `${what} ${text(rangeVar, 'relname') ?? ''}`.trim());
}

/** EXPLAIN runs the statement only with ANALYZE (and not `ANALYZE false`). */
function explainExecutes(stmt: AstNode): boolean {
  for (const option of list(stmt, 'options')) {
    const def = child(asNode(option), 'DefElem');
    if (text(def, 'defname') !== 'analyze') continue;
    if (def?.['arg'] === undefined) return true;
    const arg = def['arg'];
    const value = booleanOf(constantOf(arg)) ?? booleanOf(stringArg(arg));
    return value !== false;
  }
  return false;
}

function stringArg(arg: unknown): { kind: 'string'; value: string } | null {
  const sval = text(child(asNode(arg), 'String'), 'sval');
  return sval === null ? null : { kind: 'string', value: sval };
}
