/**
 * The connection under a session (Session, session.ts, extends this): the pg client, what it
 * heard between steps (notices, notifications), whether it still lives and why not, its
 * BackendKeyData and the wire guard's evidence, and ending it politely or at once.
 */
import type pg from 'pg';
import type { NoticeRecord, NotificationRecord } from '../record/step-record.js';
import { within } from '../record/time.js';
import { violationOf } from '../wire/pg-guard.js';
import type { ProtocolViolation } from '../wire/violation.js';
import type { SessionBounds } from './session-options.js';

export abstract class SessionLink {
  protected client: pg.Client | null;
  protected bounds: SessionBounds;
  protected pendingNotices: NoticeRecord[] = [];
  protected pendingNotifications: NotificationRecord[] = [];
  /** Set once the connection failed or was destroyed: later steps are recorded as errors. */
  protected deadReason: string | null = null;
  /** Set by abandonWait: the step in flight is to be recorded as unanswered. */
  protected waitAbandoned: string | null = null;

  /** The client as connected, kept after close() for {@link violation}. */
  private readonly guarded: pg.Client;

  protected constructor(client: pg.Client, bounds: SessionBounds) {
    this.client = client;
    this.guarded = client;
    this.bounds = bounds;
    client.on('error', (err: Error) => {
      // Without a listener an 'error' event would crash the process (a pooler closing us is
      // an expected event here, e.g. statement mode refusing BEGIN).
      this.deadReason ??= err.message;
    });
    client.on('end', () => {
      this.deadReason ??= 'connection closed';
    });
    client.on('notice', (n: { severity?: string; code?: string; message?: string }) => {
      this.pendingNotices.push({ severity: n.severity ?? 'NOTICE', code: n.code, message: n.message ?? '' });
    });
    client.on('notification', (n: pg.Notification) => {
      this.pendingNotifications.push({ channel: n.channel, payload: n.payload ?? '', senderPid: n.processId });
    });
  }

  /** The malformed message that closed this session's connection (the wire guard's evidence), if one did. */
  get violation(): ProtocolViolation | null {
    return violationOf(this.guarded)?.violation ?? null;
  }

  get alive(): boolean {
    return this.client !== null && this.deadReason === null;
  }

  /** BackendKeyData as the target sent it (behind a pooler: the pooler's key, not a backend's). */
  get cancelKey(): { processId: number; secretKey: number } | null {
    const c = this.client as unknown as { processID?: number; secretKey?: number } | null;
    return c?.processID !== undefined && c.secretKey !== undefined
      ? { processId: c.processID, secretKey: c.secretKey }
      : null;
  }

  /**
   * Ends the session politely, bounded; falls back to destroying the socket. A session still
   * inside a transaction (a holder that was never released, an observer cut short) rolls it
   * back first and waits for the answer, then sends Terminate: a pooler that hands a departed
   * client's server connection back to its pool as it is (pgagroal 1.6.0 on Terminate) would
   * otherwise keep that backend idle in our transaction, and the pool one server smaller, for
   * good. Not in one write with the Terminate: pgagroal forwards a whole read to the server
   * when it starts with a Query, so the Terminate would end the server connection, and
   * PgBouncer closes a server connection whose client leaves before its answer came back.
   */
  async close(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.client = null;
    if (this.deadReason !== null) {
      destroySocket(client);
      return;
    }
    const rolledBack = inTransaction(client) ? client.query('ROLLBACK').then(noop, noop) : Promise.resolve();
    await within(rolledBack.then(() => client.end()).catch(noop), this.bounds.stepMs, undefined);
    destroySocket(client);
  }

  /**
   * Gives up on the step in flight (a pooler queueing it) and drops the connection: that step
   * is recorded as unanswered within its bound, like any other timeout.
   */
  abandonWait(reason: string): void {
    this.waitAbandoned ??= reason;
    this.destroy(reason);
  }

  /** Drops the TCP connection at once (a pooler sees a client vanish). */
  destroy(reason = 'destroyed'): void {
    this.deadReason ??= reason;
    const client = this.client;
    if (client) destroySocket(client);
  }
}

function noop(): void {}

/** What the client's last ReadyForQuery said: `I` idle, `T` in a transaction block, `E` in a failed one. */
export function transactionStatus(client: pg.Client): string | null {
  return (client as unknown as { getTransactionStatus?: () => string | null }).getTransactionStatus?.() ?? null;
}

function inTransaction(client: pg.Client): boolean {
  const status = transactionStatus(client);
  return status === 'T' || status === 'E';
}

function destroySocket(client: pg.Client): void {
  const stream = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
  stream?.destroy();
}
