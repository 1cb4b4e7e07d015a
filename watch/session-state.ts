/**
 * The session state one connection has built up, transaction by transaction, and the
 * dependencies between its transactions. An item remembers the statement and transaction that
 * created it; a statement of a LATER transaction that uses it makes a dependency, reported
 * once per item when the item ends (undone, replaced, or the connection closes): the first
 * explicit use if there was one (EXECUTE, FETCH, the unlock), else the first implicit one (a
 * statement running under a setting or a held lock).
 *
 * What PostgreSQL undoes at ROLLBACK is undone here too: settings, temp tables, WITH HOLD
 * cursors and LISTEN are transactional; prepared statements, session advisory locks and the
 * backend's sequence values are not.
 */
import type { Effect, StatementEffects } from './statement-effects.js';
import { useOfSetting } from './setting-uses.js';
import type { StateKind, WatchCheckId, WatchEvidence, WatchStatement } from './watch-types.js';

/** One dependency, handed to the collector. */
export interface Dependency {
  check: WatchCheckId;
  state: string;
  created: WatchStatement;
  /** Null when no later transaction used it in this run (`evidence` is then `would-break`). */
  used: WatchStatement | null;
  use: 'explicit' | 'implicit' | 'none';
  /** `seen`: a later transaction relied on it; `would-break`: it outlived its transaction, unused. */
  evidence: WatchEvidence;
  kind: StateKind;
  certain: boolean;
  /** For a setting: its name (lower-case), which the pooler join may judge on its own. */
  setting?: string;
}

interface Item {
  kind: StateKind;
  key: string;
  check: WatchCheckId;
  certain: boolean;
  created: WatchStatement;
  explicit: WatchStatement | null;
  implicit: WatchStatement | null;
}

/** Kinds a later statement relies on just by running (a setting applies, a lock is held). */
const IMPLICIT: ReadonlySet<StateKind> = new Set(['guc', 'lock']);
/**
 * Kinds that break through a transaction pooler merely by outliving their transaction, used or
 * not: a LISTEN stays on a server connection the client no longer holds (the channel goes
 * deaf), a named statement stays where another client preparing the same name collides.
 */
const BREAKS_UNUSED: ReadonlySet<StateKind> = new Set(['listen', 'prepared']);
/** Kinds a ROLLBACK takes back. */
const TRANSACTIONAL: ReadonlySet<StateKind> = new Set(['guc', 'temp', 'cursor', 'listen']);
/** Per connection: beyond this many live items, new ones are not followed (and a warning says so). */
export const MAX_ITEMS_PER_CONNECTION = 2_000;

/** A statement's text as stored: long texts are cut so memory stays bounded. */
export const MAX_SQL_CHARS = 2_000;

export class SessionState {
  /** 1-based ordinal of the transaction in progress (or the next one). */
  transaction = 1;
  private statementsInTransaction = 0;
  private readonly items = new Map<string, Item>();
  /** Live items created in the transaction in progress (to take back at ROLLBACK). */
  private readonly createdNow = new Set<Item>();
  /** Live items of the implicit kinds that no later statement has run under yet. */
  private readonly awaitingImplicit = new Set<Item>();
  capped = false;

  constructor(private readonly report: (d: Dependency) => void) {}

  /** A statement that completed successfully in the transaction in progress. */
  statement(sql: string, effects: StatementEffects): void {
    this.statementsInTransaction++;
    const shown = cut(sql);
    for (const effect of effects.effects) this.apply(effect, shown);
    if (effects.relies) this.implicitUse(shown, effects);
  }

  /** A protocol-level message that creates, uses or closes a named statement. */
  protocol(effect: Effect, text: string): void {
    this.statementsInTransaction++;
    this.apply(effect, cut(text));
  }

  /** A notification delivered on `channel`: the use of a LISTEN. */
  notification(channel: string, text: string): void {
    const item = this.items.get(`listen:${channel}`);
    if (item !== undefined && item.created.transaction < this.transaction && item.explicit === null) {
      item.explicit = { sql: cut(text), what: `notification on ${channel}`, transaction: this.transaction };
    }
  }

  /** ReadyForQuery 'I': the transaction in progress ended. */
  endTransaction(rolledBack: boolean): void {
    if (this.statementsInTransaction === 0) return;
    if (rolledBack) {
      for (const item of this.createdNow) {
        const id = `${item.kind}:${item.key}`;
        if (TRANSACTIONAL.has(item.kind) && this.items.get(id) === item) {
          this.items.delete(id);
          this.awaitingImplicit.delete(item);
        }
      }
    }
    this.createdNow.clear();
    this.statementsInTransaction = 0;
    this.transaction++;
  }

  /** The connection closed: every live item reports its dependency, if it had one. */
  close(): void {
    for (const item of this.items.values()) this.finish(item);
    this.items.clear();
    this.awaitingImplicit.clear();
  }

  private apply(effect: Effect, sql: string): void {
    const stmt = (what: string): WatchStatement => ({ sql, what, transaction: this.transaction });
    if (effect.op === 'create') {
      const id = `${effect.kind}:${effect.key}`;
      const old = this.items.get(id);
      if (old !== undefined) {
        this.finish(old);
        this.awaitingImplicit.delete(old);
        // Replaced: a bulk load's million INSERTs in one transaction keep one entry, not a million.
        this.createdNow.delete(old);
      } else if (this.items.size >= MAX_ITEMS_PER_CONNECTION) {
        this.capped = true;
        return;
      }
      const item: Item = {
        kind: effect.kind,
        key: effect.key,
        check: effect.check,
        certain: effect.certain,
        created: stmt(effect.what),
        explicit: null,
        implicit: null,
      };
      this.items.set(id, item);
      this.createdNow.add(item);
      if (IMPLICIT.has(item.kind)) this.awaitingImplicit.add(item);
      // lastval() reads whichever sequence this backend advanced last.
      if (effect.kind === 'sequence' && effect.key !== '?' && effect.key !== '*')
        this.apply({ ...effect, key: '*' }, sql);
      return;
    }
    if (effect.op === 'undo') {
      // One lookup for a named undo; only `*` (RESET ALL, DISCARD, UNLISTEN *) walks the items.
      const named = effect.key === '*' ? null : this.items.get(`${effect.kind}:${effect.key}`);
      const targets =
        effect.key === '*'
          ? [...this.items.values()].filter((i) => i.kind === effect.kind)
          : named !== undefined && named !== null
            ? [named]
            : [];
      for (const item of targets) {
        this.finish(item);
        this.items.delete(`${item.kind}:${item.key}`);
        this.createdNow.delete(item);
        this.awaitingImplicit.delete(item);
      }
      return;
    }
    const item =
      this.items.get(`${effect.kind}:${effect.key}`) ??
      (effect.fallback !== undefined ? this.items.get(`${effect.kind}:${effect.fallback}`) : undefined);
    if (item !== undefined && item.created.transaction < this.transaction && item.explicit === null)
      item.explicit = stmt(effect.what);
  }

  /**
   * Only items still waiting for their first implicit use are visited: O(those), not O(all). A
   * setting is used only by a statement whose meaning depends on it (watch/setting-uses.ts).
   */
  private implicitUse(sql: string, effects: StatementEffects): void {
    for (const item of this.awaitingImplicit) {
      if (item.created.transaction >= this.transaction) continue;
      const what =
        item.kind === 'lock'
          ? 'runs while the lock is held'
          : useOfSetting(item.key, effects.uses, effects.relies, (name) => this.items.has(`temp:${name}`));
      if (what === null) continue;
      item.implicit = { sql, what, transaction: this.transaction };
      this.awaitingImplicit.delete(item);
    }
  }

  private finish(item: Item): void {
    const used = item.explicit ?? item.implicit;
    const outlived = item.created.transaction < this.transaction;
    if (used === null && !(BREAKS_UNUSED.has(item.kind) && outlived)) return;
    this.report({
      check: item.check,
      state: stateName(item),
      created: item.created,
      used,
      use: item.explicit !== null ? 'explicit' : item.implicit !== null ? 'implicit' : 'none',
      evidence: used !== null ? 'seen' : 'would-break',
      kind: item.kind,
      certain: item.certain,
      ...(item.kind === 'guc' ? { setting: item.key } : {}),
    });
    item.explicit = null;
    item.implicit = null;
  }
}

function stateName(item: Item): string {
  switch (item.kind) {
    case 'guc':
      return item.key;
    case 'prepared':
      return `prepared statement ${item.key}`;
    case 'cursor':
      return `cursor ${item.key}`;
    case 'temp':
      return `temporary relation ${item.key}`;
    case 'listen':
      return `LISTEN ${item.key}`;
    case 'lock':
      return `advisory lock ${item.key}`;
    case 'sequence':
      if (item.key === '?') return 'the sequence value of a serial default';
      return item.key === '*' ? "the session's lastval()" : `the session's value of sequence ${item.key}`;
  }
}

function cut(sql: string): string {
  const trimmed = sql.trim();
  return trimmed.length <= MAX_SQL_CHARS
    ? trimmed
    : `${trimmed.slice(0, MAX_SQL_CHARS)}... (${trimmed.length} characters)`;
}
