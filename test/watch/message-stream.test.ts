/**
 * The framer behind the proxy's observation: frames survive any chunking (down to one byte at a
 * time), large payloads are kept only up to the bound while their length is still counted,
 * startup-phase packets are untyped until the StartupMessage, and bad lengths are violations
 * that stop the stream instead of allocating or looping.
 */
import { describe, expect, test } from 'vitest';
import { MessageStream, SSL_REQUEST, startupCode } from '../../watch/message-stream.js';

function typed(type: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0);
  head.writeInt32BE(payload.length + 4, 1);
  return Buffer.concat([head, payload]);
}

function untyped(code: number, rest = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + rest.length, 0);
  head.writeInt32BE(code, 4);
  return Buffer.concat([head, rest]);
}

describe('MessageStream', () => {
  test('the same frames whatever the chunking, including one byte at a time', () => {
    const bytes = Buffer.concat([
      untyped(SSL_REQUEST),
      untyped(196608, Buffer.from('user\0u\0\0')),
      typed('Q', Buffer.from('SELECT 1\0')),
      typed('S', Buffer.alloc(0)),
    ]);
    const whole = new MessageStream('frontend').push(bytes);
    const stream = new MessageStream('frontend');
    const frames = [...bytes].flatMap((b) => stream.push(Buffer.from([b])).frames);
    expect(frames).toEqual(whole.frames);
    expect(frames.map((f) => f.type)).toEqual([null, null, 'Q', 'S']);
    expect(startupCode(frames[0]!)).toBe(SSL_REQUEST);
    expect(frames[2]!.payload.toString()).toBe('SELECT 1\0');
  });

  test('a payload above keepBytes is cut but its length counted, and the next frame still found', () => {
    const stream = new MessageStream('backend', { keepBytes: 10 });
    // A well-formed DataRow (engine/wire checks its content): one column of 994 bytes.
    const row = Buffer.alloc(1000, 7);
    row.writeInt16BE(1, 0);
    row.writeInt32BE(994, 2);
    const { frames } = stream.push(Buffer.concat([typed('D', row), typed('Z', Buffer.from('I'))]));
    expect(frames[0]).toMatchObject({ type: 'D', length: 1000, truncated: true });
    expect(frames[0]!.payload.length).toBe(10);
    expect(frames[1]).toMatchObject({ type: 'Z', truncated: false });
  });

  test('lengths below 4, above the limit, or a bad startup length are violations that stop it', () => {
    // The messages are engine/wire's, the same the wire guard reports.
    expect(new MessageStream('backend').push(Buffer.from([0x52, 0, 0, 0, 2])).violation).toMatch(
      /declared length 2: a declared length below 4/,
    );
    expect(
      new MessageStream('frontend', { maxMessageBytes: 100 }).push(
        Buffer.concat([startup(), typed('Q', Buffer.alloc(200))]),
      ).violation,
    ).toMatch(/above the bound of 100 bytes/);
    const front = new MessageStream('frontend');
    expect(front.push(Buffer.from('GET / HTTP/1.1\r\n')).violation).toMatch(
      /startup packet, declared length \d+: a startup packet's length must be 8 to 10000/,
    );
    // Stopped: later bytes produce nothing, and no second report.
    expect(front.push(typed('Q', Buffer.from('x\0')))).toEqual({ frames: [], violation: null });
  });

  test('control: a well-formed stream reports no violation', () => {
    expect(new MessageStream('backend').push(typed('Z', Buffer.from('I'))).violation).toBeNull();
  });
});

/** A well-formed StartupMessage (protocol 3.0, user and database). */
function startup(): Buffer {
  const params = Buffer.from('user\0u\0database\0d\0\0');
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + params.length, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, params]);
}
