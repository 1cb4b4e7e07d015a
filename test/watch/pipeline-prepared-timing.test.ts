/**
 * A named statement in a pipeline is seen whatever the timing on the wire. libpq flushes each
 * pipelined round at its Sync, so the server may answer round one's Parse before the watch has
 * read round two: at that ParseComplete only one round is in flight. A loaded CI run missed the
 * named statement that way (test/watch/protocol-traffic.test.ts: `pipeline-prepared` absent).
 * Its Bind in a later, pipelined round now says it, once per Parse. The frames are fed to the
 * tracker by hand, in the two orders the wire allows.
 */
import { describe, expect, test } from 'vitest';
import { ConnectionTracker } from '../../watch/connection-tracker.js';
import { EffectsCache } from '../../watch/statement-effects.js';
import type { TrafficEvent } from '../../watch/connection-tracker.js';
import type { Frame } from '../../watch/message-stream.js';

const cstr = (s: string) => Buffer.from(`${s}\0`);
const int16 = (n: number) => Buffer.from([n >> 8, n & 255]);
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const frame = (type: string, ...parts: Buffer[]): Frame => {
  const payload = Buffer.concat(parts);
  return { type, length: payload.length, payload, truncated: false };
};

const parse = (name: string, sql: string) => frame('P', cstr(name), cstr(sql), int16(0));
/** Bind of `statement` to the unnamed portal, one text parameter, no result formats. */
const bind = (statement: string, param: string) =>
  frame('B', cstr(''), cstr(statement), int16(0), int16(1), int32(param.length), Buffer.from(param), int16(0));
const execute = () => frame('E', cstr(''), int32(0));
const sync = () => frame('S');
const ready = () => frame('Z', Buffer.from('I'));
const round = (...f: Frame[]) => [...f, execute(), sync()];

function tracked() {
  const events: TrafficEvent[] = [];
  const t = new ConnectionTracker(
    { id: 1, applicationName: null, user: null, database: null, clientPort: 1 },
    new EffectsCache(),
    () => undefined,
    () => undefined,
    (e) => events.push(e),
  );
  return { t, named: () => events.filter((e) => e.kind === 'pipeline-prepared').map((e) => e.sql) };
}

const SQL = 'SELECT $1::int + 1';
const answers = (withParse: boolean) => [
  ...(withParse ? [frame('1')] : []),
  frame('2'),
  frame('C', cstr('SELECT 1')),
  ready(),
];

describe('a named statement parsed in a pipeline', () => {
  test("round one's Parse answered before round two was read: its Bind in round three says it", () => {
    const { t, named } = tracked();
    for (const f of round(parse('tp', SQL), bind('tp', '1'))) t.frontend(f);
    t.backend(frame('1'));
    for (const f of [...round(bind('tp', '2')), ...round(bind('tp', '3'))]) t.frontend(f);
    for (const f of [frame('2'), frame('C', cstr('SELECT 1')), ready()]) t.backend(f);
    for (const f of [...answers(false), ...answers(false)]) t.backend(f);
    expect(named()).toEqual([SQL]);
  });

  test('all three rounds read before any answer: said once, at the Parse', () => {
    const { t, named } = tracked();
    for (const f of [...round(parse('tp', SQL), bind('tp', '1')), ...round(bind('tp', '2')), ...round(bind('tp', '3'))])
      t.frontend(f);
    for (const f of [...answers(true), ...answers(false), ...answers(false)]) t.backend(f);
    expect(named()).toEqual([SQL]);
  });

  test('control: the same rounds one at a time, each answered before the next: nothing said', () => {
    const { t, named } = tracked();
    round(parse('tp', SQL), bind('tp', '1')).forEach((f) => t.frontend(f));
    answers(true).forEach((f) => t.backend(f));
    for (const p of ['2', '3']) {
      round(bind('tp', p)).forEach((f) => t.frontend(f));
      answers(false).forEach((f) => t.backend(f));
    }
    expect(named()).toEqual([]);
  });
});
