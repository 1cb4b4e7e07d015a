/**
 * How a wire exchange's sent messages and decoded answers pair up: the messages split into
 * segments, each ended by what makes the server answer ReadyForQuery (a Sync, a Query, the end
 * of a COPY a Query started), and the answers gathered per ReadyForQuery into the rows per
 * statement, CommandComplete tags, the error and the status a recorded step carries.
 */
import type { NoticeRecord, NotificationRecord } from '../record/step-record.js';
import type { BackendItem, ServerError } from '../wire/backend.js';
import type { FrontendMessage } from '../wire/frontend.js';

/** What came back for one segment of a pipeline: everything up to and including its ReadyForQuery. */
export interface SyncAnswer {
  /** Every message decoded, in order. */
  items: BackendItem[];
  /**
   * Rows of each statement, in order: one list per CommandComplete (and one for rows an error
   * cut short). Columns are named by the last RowDescription (a Describe of the portal, or a
   * Query's); without one, `$1`, `$2`...
   */
  results: Array<Array<Record<string, string | null>>>;
  /** CommandComplete tags in order (`SELECT 1`, `INSERT 0 1`, `BEGIN`). */
  tags: string[];
  /** The first ErrorResponse, verbatim. */
  error: ServerError | null;
  notices: NoticeRecord[];
  notifications: NotificationRecord[];
  /** ReadyForQuery's transaction status (I, T, E), or null when it never came. */
  status: string | null;
}

/** Whether `m` ends a segment, `copyViaQuery` when a Query's COPY FROM STDIN is under way. */
function endsSegment(m: FrontendMessage, copyViaQuery: boolean): boolean {
  return m.type === 'S' || m.type === 'Q' || (copyViaQuery && (m.type === 'c' || m.type === 'f'));
}

/**
 * The messages split into segments, each ending with what asks for a ReadyForQuery; messages
 * after the last such one (a Flush, a bare Parse) are a last segment of their own.
 */
export function segmentsOf(messages: readonly FrontendMessage[], copyViaQuery: boolean): FrontendMessage[][] {
  const out: FrontendMessage[][] = [];
  let current: FrontendMessage[] = [];
  let inCopy = copyViaQuery;
  for (const m of messages) {
    current.push(m);
    if (endsSegment(m, inCopy)) {
      out.push(current);
      current = [];
      inCopy = false;
    }
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** How many ReadyForQuery messages the segments ask for (a trailing open segment asks for none). */
export function readiesFor(segments: readonly FrontendMessage[][], copyViaQuery: boolean): number {
  return segments.filter((s, i) => endsSegment(s.at(-1)!, copyViaQuery && i === 0)).length;
}

export function emptyAnswer(): SyncAnswer {
  return { items: [], results: [], tags: [], error: null, notices: [], notifications: [], status: null };
}

/** Gathers decoded messages into one segment's answer. */
export class AnswerBuilder {
  readonly answer = emptyAnswer();
  private columns: string[] | null = null;
  private rows: Array<Record<string, string | null>> = [];

  add(item: BackendItem): void {
    const a = this.answer;
    a.items.push(item);
    switch (item.kind) {
      case 'RowDescription':
        this.columns = item.columns;
        break;
      case 'DataRow':
        this.rows.push(this.row(item.values));
        break;
      case 'CommandComplete':
        a.tags.push(item.tag);
        this.endStatement(true);
        break;
      case 'EmptyQueryResponse':
        this.endStatement(true);
        break;
      case 'ErrorResponse':
        a.error ??= item.error;
        this.endStatement(false);
        break;
      case 'NoticeResponse':
        a.notices.push({ severity: item.notice.severity, code: item.notice.code, message: item.notice.message });
        break;
      case 'NotificationResponse':
        a.notifications.push({ channel: item.channel, payload: item.payload, senderPid: item.pid });
        break;
      case 'ReadyForQuery':
        this.endStatement(false);
        a.status = item.status;
        break;
      default:
        break;
    }
  }

  private row(values: Array<string | null>): Record<string, string | null> {
    const cols = this.columns;
    return Object.fromEntries(values.map((v, i) => [cols?.[i] ?? `$${i + 1}`, v]));
  }

  /** Closes the statement under way: its rows are a result set when it completed or returned any. */
  private endStatement(completed: boolean): void {
    if (completed || this.rows.length > 0) this.answer.results.push(this.rows);
    this.rows = [];
    this.columns = null;
  }
}
