/**
 * protocol/negotiation: its judge on records built by hand in the shape its scenario writes
 * (one noted step per client, its facts in the row), one per label, with the messages the
 * fixtures and issue 38's hand runs showed, and the paths on which it must not conclude.
 * TODO once recorded (`npm run record -- test/recorded protocol/negotiation`): judge the
 * recorded runs here too, each with the line of the record that decides it.
 */
import { describe, expect, test } from 'vitest';
import type { StepRecord } from '../../engine/types.js';
import { negotiation } from '../../suites/protocol/negotiation.check.js';
import { recorded } from '../support/recorded.js';

const discovery = recorded('direct').discovery;

function client(seq: number, tag: string, label: string, why: string, extra: Record<string, unknown> = {}): StepRecord {
  return {
    seq,
    session: tag.endsWith('v32') ? 'V' : 'G',
    tag,
    sql: '(raw startup)',
    pid: null,
    results: [
      [
        {
          label,
          asked: tag.endsWith('v32') ? '3.2' : '3.9999',
          why,
          seen: '',
          keyBytes: null,
          violationHex: null,
          ...extra,
        },
      ],
    ],
    error: null,
    notices: [],
    notifications: [],
    startMs: 0,
    durationMs: 1,
    timedOut: false,
    txStatus: null,
  };
}

const judge = (v: [string, string], g: [string, string]) =>
  negotiation.judge([client(1, 'negotiation.v32', ...v), client(2, 'negotiation.grease', ...g)], discovery);

const NEGOTIATED: [string, string] = ['negotiated', 'NegotiateProtocolVersion down to 3.0, and SELECT 1 answered'];

describe('protocol/negotiation: judge', () => {
  test('served (PostgreSQL 18): the 3.2 client proved it, the grease negotiated', () => {
    const j = judge(
      ['served', 'a 32-byte cancel key, and a CancelRequest with it stopped pg_sleep (57014)'],
      NEGOTIATED,
    );
    expect(j).toMatchObject({ outcome: 'served', facts: { v32: 'served', grease: 'negotiated' } });
  });
  test('negotiated (PostgreSQL 15, PgBouncer 1.25): both negotiated down', () => {
    expect(judge(NEGOTIATED, NEGOTIATED).outcome).toBe('negotiated');
  });
  test('refused (PgBouncer 1.18): FATAL 08P01 bad packet header, kept in the facts', () => {
    const j = judge(['refused', 'FATAL 08P01: bad packet header'], ['refused', 'FATAL 08P01: bad packet header']);
    expect(j).toMatchObject({ outcome: 'refused', facts: { v32Why: 'FATAL 08P01: bad packet header' } });
  });
  test('dropped (Odyssey 1.5.1, pgagroal 1.6.0): a reset or close with nothing', () => {
    expect(
      judge(
        ['dropped', 'the connection was reset with no error'],
        ['dropped', 'the connection was closed with no error'],
      ).outcome,
    ).toBe('dropped');
  });
  test('malformed: a PROTOCOL_VIOLATION on either client is the outcome, worse than a refusal', () => {
    expect(judge(['malformed', 'the server sent ErrorResponse...'], ['refused', 'FATAL 08P01: x']).outcome).toBe(
      'malformed',
    );
  });
  test('the worse of the two: a 3.2 client served while the grease is refused reads refused', () => {
    expect(judge(['served', 'proved'], ['refused', 'FATAL 08P01: bad packet header']).outcome).toBe('refused');
  });
  test('a breaking answer to one client concludes even when the other did not', () => {
    expect(
      judge(['inconclusive', 'no ReadyForQuery, error or close within 5000 ms'], ['dropped', 'reset']).outcome,
    ).toBe('dropped');
  });
  test('inconclusive: silence within the bound, with the wait in the reason', () => {
    const j = judge(['inconclusive', 'no ReadyForQuery, error or close within 5000 ms'], NEGOTIATED);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/3\.2 client: .*within 5000 ms/);
  });
  test('inconclusive: a 3.2 session that did not prove itself is not served', () => {
    expect(judge(['inconclusive', 'a 4-byte cancel key (3.0 size): not proven'], NEGOTIATED).outcome).toBeNull();
  });
  test('inconclusive: a record without one of the clients', () => {
    expect(negotiation.judge([client(1, 'negotiation.v32', ...NEGOTIATED)], discovery).outcome).toBeNull();
  });
});
