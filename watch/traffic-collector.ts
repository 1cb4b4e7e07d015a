/**
 * The watch's list of traffic the protocol checks concern (audit/protocol-traffic.ts): one entry
 * per kind and statement text, however many connections sent it, with how often it was seen,
 * how often inside an explicit transaction block, and where first. Bounded like the findings:
 * past the bound, entries are counted per kind, not listed.
 */
import { TRAFFIC, type ProtocolCheckId, type TrafficKind } from '../audit/protocol-traffic.js';
import type { TrafficEvent } from './connection-tracker.js';
import type { WatchConnection } from './watch-types.js';

/** Distinct (kind, statement) entries kept; the rest are counted in `overflow`. */
export const MAX_TRAFFIC = 200;
/** A statement is kept to this many characters (the grouping key is the whole text). */
const STATEMENT_CHARS = 2_000;

/** One kind of traffic on one statement, over the whole watch. */
export interface WatchTraffic {
  check: ProtocolCheckId;
  /** False while the check is not in this build's catalogue (it is written on another branch). */
  checkInCatalogue: boolean;
  kind: TrafficKind;
  /** `COPY FROM STDIN`, `pipelined rounds`... */
  what: string;
  /** The statement it concerns, as first sent. */
  statement: string;
  count: number;
  /** Of `count`, how many were inside an explicit transaction block. */
  inBlock: number;
  /** Distinct connections it was seen on. */
  connections: number;
  /** Where it was first seen. */
  first: { connection: number; transaction: number };
  depends: string;
  advice: string;
}

interface Entry {
  traffic: WatchTraffic;
  seenOn: Set<number>;
}

export class TrafficCollector {
  private readonly entries = new Map<string, Entry>();
  readonly overflow: Partial<Record<TrafficKind, number>> = {};

  /** `known`: the check ids of this build's catalogue. */
  constructor(private readonly known: ReadonlySet<string>) {}

  add(e: TrafficEvent, connection: WatchConnection): void {
    const key = `${e.kind}\u0000${e.sql}`;
    let entry = this.entries.get(key);
    if (entry === undefined) {
      if (this.entries.size >= MAX_TRAFFIC) {
        this.overflow[e.kind] = (this.overflow[e.kind] ?? 0) + 1;
        return;
      }
      const meaning = TRAFFIC[e.kind];
      entry = {
        seenOn: new Set(),
        traffic: {
          check: meaning.check,
          checkInCatalogue: this.known.has(meaning.check),
          kind: e.kind,
          what: meaning.what,
          statement: e.sql.length > STATEMENT_CHARS ? `${e.sql.slice(0, STATEMENT_CHARS)}...` : e.sql,
          count: 0,
          inBlock: 0,
          connections: 0,
          first: { connection: connection.id, transaction: e.transaction },
          depends: meaning.depends,
          advice: meaning.advice,
        },
      };
      this.entries.set(key, entry);
    }
    entry.traffic.count++;
    if (e.inBlock) entry.traffic.inBlock++;
    entry.seenOn.add(connection.id);
    entry.traffic.connections = entry.seenOn.size;
  }

  /** Every entry, in the order first seen. */
  traffic(): WatchTraffic[] {
    return [...this.entries.values()].map((e) => ({ ...e.traffic }));
  }
}
