/**
 * The validating frame reader on its own: valid streams of both directions give the same
 * frames however they are split (whole, byte at a time, random splits); each kind of malformed
 * message is refused with a PROTOCOL_VIOLATION carrying the evidence, the same violation
 * wherever the bytes were split; random garbage never loops and never escapes as another error.
 */
import { serialize } from 'pg-protocol';
import { describe, expect, test } from 'vitest';
import { FrameReader, type Frame } from '../../engine/wire/frame-reader.js';
import { ProtocolViolationError } from '../../engine/wire/violation.js';

const int32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const int16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
};
const cstr = (s: string): Buffer => Buffer.from(`${s}\0`);
const msg = (type: string, ...body: Buffer[]): Buffer => {
  const b = Buffer.concat(body);
  return Buffer.concat([Buffer.from(type), int32(b.length + 4), b]);
};

/** One of nearly every backend message, valid. */
const BACKEND = [
  msg('R', int32(10), cstr('SCRAM-SHA-256'), Buffer.from([0])),
  msg('R', int32(11), Buffer.from('r=abc,s=def,i=4096')),
  msg('R', int32(12), Buffer.from('v=xyz')),
  msg('R', int32(0)),
  msg('S', cstr('server_version'), cstr('16.4')),
  msg('K', int32(1234), int32(5678)),
  msg('Z', Buffer.from('I')),
  msg(
    'T',
    int16(2),
    cstr('pid'),
    int32(0),
    int16(0),
    int32(23),
    int16(4),
    int32(-1),
    int16(0),
    cstr('name'),
    int32(0),
    int16(0),
    int32(25),
    int16(-1),
    int32(-1),
    int16(0),
  ),
  msg('D', int16(2), int32(4), Buffer.from('4242'), int32(-1)),
  msg('D', int16(1), int32(70_000), Buffer.alloc(70_000, 0x61)),
  msg('C', cstr('SELECT 2')),
  msg('N', cstr('SNOTICE'), cstr('C00000'), cstr('Mhello'), Buffer.from([0])),
  msg('E', cstr('SERROR'), cstr('VERROR'), cstr('C53300'), cstr('Msorry, too many clients already'), Buffer.from([0])),
  msg('A', int32(99), cstr('chan'), cstr('payload')),
  msg('t', int16(2), int32(23), int32(25)),
  msg('n'),
  msg('1'),
  msg('2'),
  msg('3'),
  msg('s'),
  msg('I'),
  msg('c'),
  msg('G', Buffer.from([0]), int16(1), int16(0)),
  msg('H', Buffer.from([0]), int16(0)),
  msg('d', Buffer.from('copy data\n')),
  msg('v', int32(0x30000), int32(1), cstr('_pq_.x')),
  msg('V', int32(-1)),
  msg('Z', Buffer.from('T')),
];
const backendStream = Buffer.concat(BACKEND);

const frontendStream = Buffer.concat([
  serialize.requestSsl(),
  serialize.startup({ user: 'u', database: 'd', application_name: 'pooltest' }),
  serialize.password('secret'),
  serialize.query('SELECT 1'),
  serialize.parse({ name: 's1', text: 'SELECT $1::int', types: [23] }),
  serialize.bind({ statement: 's1', values: ['1'] }),
  serialize.describe({ type: 'P', name: '' }),
  serialize.execute({ portal: '', rows: 0 }),
  serialize.sync(),
  serialize.flush(),
  serialize.close({ type: 'S', name: 's1' }),
  serialize.end(),
]);

/** A deterministic PRNG (mulberry32), so a failing split can be replayed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function splitAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts)].filter((c) => c > 0 && c < bytes.length).sort((x, y) => x - y);
  const out: Buffer[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    out.push(Buffer.from(bytes.subarray(from, p)));
    from = p;
  }
  return out;
}

const randomSplit = (bytes: Buffer, rnd: () => number, n: number): Buffer[] =>
  splitAt(
    bytes,
    Array.from({ length: n }, () => Math.floor(rnd() * bytes.length)),
  );
const bytewise = (bytes: Buffer): Buffer[] => Array.from(bytes, (b) => Buffer.from([b]));

/** Frames as comparable plain values (the payload as hex). */
function read(
  direction: 'backend' | 'frontend',
  chunks: Buffer[],
): Array<Omit<Frame, 'payload'> & { payload: string }> {
  const reader = new FrameReader({ direction });
  const frames = chunks.flatMap((c) => reader.push(c));
  reader.end();
  return frames.map((f) => ({ ...f, payload: f.payload.toString('hex') }));
}

/** The violation the bytes cause, split as given (push or check). */
function violation(
  direction: 'backend' | 'frontend',
  chunks: Buffer[],
  how: 'push' | 'check' = 'push',
): ProtocolViolationError {
  const reader = new FrameReader({ direction });
  try {
    for (const c of chunks) how === 'push' ? reader.push(c) : reader.check(c);
    reader.end();
  } catch (err) {
    expect(err).toBeInstanceOf(ProtocolViolationError);
    return err as ProtocolViolationError;
  }
  throw new Error('no violation');
}

describe('valid streams', () => {
  test('backend: every message becomes one frame with its type, length and body', () => {
    const frames = read('backend', [backendStream]);
    expect(frames.map((f) => f.type).join('')).toBe('RRRRSKZTDDCNEAtn123sIcGHdvVZ');
    expect(frames[4]).toEqual({
      type: 'S',
      length: 4 + 20,
      payload: Buffer.concat([cstr('server_version'), cstr('16.4')]).toString('hex'),
    });
    expect(frames[9]!.length).toBe(4 + 2 + 4 + 70_000);
  });

  test('backend: byte at a time and 300 random splits give identical frames; check() accepts them all', () => {
    const whole = read('backend', [backendStream]);
    expect(read('backend', bytewise(backendStream))).toEqual(whole);
    const rnd = prng(7);
    for (let i = 0; i < 300; i++) {
      const chunks = randomSplit(backendStream, rnd, 1 + Math.floor(rnd() * 40));
      expect(read('backend', chunks)).toEqual(whole);
      const checker = new FrameReader({ direction: 'backend' });
      for (const c of chunks) checker.check(c);
      checker.end();
    }
  });

  test('frontend: SSLRequest, startup, then typed messages; identical byte at a time and split', () => {
    const whole = read('frontend', [frontendStream]);
    expect(whole.map((f) => f.kind ?? f.type)).toEqual([
      'ssl-request',
      'startup',
      'p',
      'Q',
      'P',
      'B',
      'D',
      'E',
      'S',
      'H',
      'C',
      'X',
    ]);
    expect(read('frontend', bytewise(frontendStream))).toEqual(whole);
    const rnd = prng(11);
    for (let i = 0; i < 200; i++)
      expect(read('frontend', randomSplit(frontendStream, rnd, 1 + Math.floor(rnd() * 20)))).toEqual(whole);
  });

  test('a chunk of complete frames yields payloads that are views into it (no copy)', () => {
    const reader = new FrameReader({ direction: 'backend' });
    const frames = reader.push(backendStream);
    expect(frames[4]!.payload.buffer).toBe(backendStream.buffer);
  });

  test("the backend's one-byte answer to SSLRequest, when announced", () => {
    const reader = new FrameReader({ direction: 'backend' });
    reader.expectNegotiationResponse();
    const frames = reader.push(Buffer.concat([Buffer.from('N'), msg('R', int32(0))]));
    expect(frames.map((f) => [f.kind ?? null, f.type])).toEqual([
      ['negotiation', 'N'],
      [null, 'R'],
    ]);
    // Unannounced, 'N' is a NoticeResponse header and a lone byte is just a prefix.
    expect(new FrameReader({ direction: 'backend' }).push(Buffer.from('N'))).toEqual([]);
  });
});

const fields = Buffer.concat([
  cstr('SFATAL'),
  cstr('VFATAL'),
  cstr('C53300'),
  cstr('Msorry, too many clients already'),
]);
/** The real-world bug: the declared length leaves out the field list's final 0 byte. */
const shortError = Buffer.concat([Buffer.from('E'), int32(fields.length + 4), fields, Buffer.from([0])]);

describe('violations', () => {
  test('ErrorResponse whose terminator lies outside its declared length: the same violation however it is split', () => {
    const v = violation('backend', [shortError]);
    expect(v.code).toBe('PROTOCOL_VIOLATION');
    expect(v.violation).toMatchObject({
      direction: 'backend',
      type: 'E',
      name: 'ErrorResponse',
      declaredLength: fields.length + 4,
      actualLength: fields.length + 5,
      offset: 0,
    });
    expect(v.violation.hex.startsWith('45 00 00 00 3a 53 46 41 54 41 4c 00')).toBe(true);
    expect(v.message).toMatch(
      /ErrorResponse \('E'\), declared length 58, actual 59: the field list's final terminator/,
    );
    // Without the stray byte at all, and at every split point: identical.
    expect(violation('backend', [shortError.subarray(0, -1)]).violation).toEqual(v.violation);
    for (let cut = 1; cut < shortError.length; cut++)
      expect(violation('backend', splitAt(shortError, [cut]), 'check').violation).toEqual(v.violation);
    expect(violation('backend', bytewise(shortError)).violation).toEqual(v.violation);
  });

  test('after valid messages: the offset points at the offending one', () => {
    const v = violation('backend', [Buffer.concat([msg('R', int32(0)), msg('Z', Buffer.from('I')), shortError])]);
    expect(v.violation.offset).toBe(9 + 6);
  });

  test.each([
    [
      'declared length 0',
      Buffer.concat([Buffer.from('Z'), int32(0), Buffer.from('I')]),
      /declared length 0: a declared length below 4/,
    ],
    ['negative length', Buffer.concat([Buffer.from('D'), int32(-8)]), /declared length -8/],
    [
      'ReadyForQuery of length 6',
      Buffer.concat([Buffer.from('Z'), int32(6), Buffer.from('II')]),
      /ReadyForQuery \('Z'\), declared length 6, actual 5: this message always has length 5/,
    ],
    ['ReadyForQuery with status X', msg('Z', Buffer.from('X')), /transaction status 0x58 is none of I, T, E/],
    [
      'ErrorResponse field without NUL',
      msg('E', cstr('SERROR'), Buffer.from('Mno end')),
      /field 'M' at body offset 7 is not NUL-terminated/,
    ],
    [
      'bytes after the ErrorResponse terminator',
      msg('E', cstr('SERROR'), Buffer.from([0, 0x41])),
      /1 byte\(s\) follow the field list's terminator/,
    ],
    [
      'ErrorResponse without its SQLSTATE',
      msg('E', cstr('SERROR'), cstr('VERROR'), cstr('Mtoo many connections'), Buffer.from([0])),
      /no field C \(the SQLSTATE\): the protocol says an ErrorResponse always has its severity, SQLSTATE and message/,
    ],
    [
      'ErrorResponse with nothing but a detail',
      msg('E', cstr('Dsome detail'), Buffer.from([0])),
      /no field S \(severity\), C \(the SQLSTATE\), M \(the message\)/,
    ],
    ['ParameterStatus with one string', msg('S', cstr('only')), /string 2 of 2 is not NUL-terminated/],
    [
      'CommandComplete longer than its text',
      Buffer.concat([Buffer.from('C'), int32(4 + 9 + 6), cstr('SELECT 1'), msg('Z', Buffer.from('I'))]),
      /6 byte\(s\) follow the message's content/,
    ],
    [
      'DataRow column past the end',
      msg('D', int16(1), int32(10), Buffer.from('abc')),
      /column 1 of 1 \(10 bytes\) runs past the declared length/,
    ],
    [
      'DataRow with more columns than bytes',
      msg('D', int16(3), int32(1), Buffer.from('a')),
      /column 2 of 3 has no length/,
    ],
    ['RowDescription field cut short', msg('T', int16(1), cstr('pid'), int32(0)), /field 1 of 1 runs past/],
    ['unknown authentication request', msg('R', int32(42)), /unknown authentication request code 42/],
    [
      'AuthenticationCleartextPassword of the wrong length',
      msg('R', int32(3), int32(0)),
      /authentication request 3 must have length 8/,
    ],
  ])('%s', (_name, bytes, message) => {
    const v = violation('backend', [bytes]);
    expect(v.message).toMatch(message);
    // Byte at a time: the same violation; a header refused at once shows only what had arrived.
    const { hex, ...rest } = violation('backend', bytewise(bytes)).violation;
    expect({ ...v.violation, hex }).toEqual({ ...rest, hex });
    expect(v.violation.hex.startsWith(hex)).toBe(true);
  });

  test('control: a NoticeResponse is held to its framing only (no SQLSTATE needed), an ErrorResponse with S, C and M in any order passes', () => {
    const notice = msg('N', cstr('SNOTICE'), cstr('Mhello'), Buffer.from([0]));
    const error = msg('E', cstr('Mboom'), cstr('C22012'), cstr('SERROR'), Buffer.from([0]));
    expect(read('backend', [notice, error]).map((f) => f.type)).toEqual(['N', 'E']);
  });

  test('an unknown type byte is refused the moment it arrives, before its length', () => {
    const v = violation('backend', [Buffer.from('q')]);
    expect(v.violation).toMatchObject({ type: 'q', name: 'unknown message', declaredLength: null, hex: '71' });
    expect(violation('backend', [Buffer.from([0])]).violation.type).toBe('\\x00');
  });

  test('a huge length is refused at its header: the reader never waits for (or buffers) the body', () => {
    const v = violation('backend', [Buffer.concat([Buffer.from('E'), int32(0x7fffff00)])], 'check');
    expect(v.message).toMatch(/declared length 2147483392: above the bound of 1048576 bytes/);
    // Big messages have a bound too, configurable.
    const reader = new FrameReader({ direction: 'backend', maxMessageBytes: 1000 });
    expect(() => reader.check(Buffer.concat([Buffer.from('D'), int32(1001)]))).toThrow(/above the bound of 1000 bytes/);
    const limited = new FrameReader({ direction: 'backend', limits: { E: 100 } });
    expect(() => limited.check(Buffer.concat([Buffer.from('E'), int32(101)]))).toThrow(/above the bound of 100 bytes/);
  });

  test('a stream that ends inside a message: end() says so, with what arrived', () => {
    const row = msg('T', int16(1), cstr('pid'), int32(0), int16(0), int32(23), int16(4), int32(-1), int16(0));
    const v = violation('backend', [row.subarray(0, 9)]);
    expect(v.violation).toMatchObject({ type: 'T', declaredLength: row.length - 1, actualLength: 8 });
    expect(v.message).toMatch(/the stream ended inside a message after 9 of its bytes/);
    expect(violation('backend', [Buffer.from('T\0')], 'check').violation).toMatchObject({ declaredLength: null });
  });

  test('frontend: bad startup packets, and bytes after a CancelRequest', () => {
    expect(violation('frontend', [int32(4)]).message).toMatch(/startup packet's length must be 8 to 10000/);
    expect(violation('frontend', [int32(20_000)]).message).toMatch(/declared length 20000/);
    expect(violation('frontend', [Buffer.concat([int32(8), int32(1234)])]).message).toMatch(
      /unknown request code 1234/,
    );
    const cancel = Buffer.concat([int32(16), int32(80877102), int32(1), int32(2)]);
    expect(violation('frontend', [cancel, serialize.query('x')]).message).toMatch(/bytes followed a CancelRequest/);
    expect(
      violation('frontend', [
        serialize.startup({ user: 'u' }),
        Buffer.concat([Buffer.from('Q'), int32(6), Buffer.from('ab')]),
      ]).message,
    ).toMatch(/Query \('Q'\).*not NUL-terminated/);
  });

  test("a client's malformed PasswordMessage: the evidence withholds its body", () => {
    // Over a (test-lowered) bound, with the password right behind the header in the same chunk.
    const reader = new FrameReader({ direction: 'frontend', limits: { p: 8 } });
    reader.push(serialize.startup({ user: 'u' }));
    let v: ProtocolViolationError | undefined;
    try {
      reader.push(Buffer.concat([Buffer.from('p'), int32(4 + 6), Buffer.from('hunter')]));
    } catch (err) {
      v = err as ProtocolViolationError;
    }
    expect(v).toBeInstanceOf(ProtocolViolationError);
    if (!v) return;
    expect(v.message).toMatch(/PasswordMessage \('p'\).*70 00 00 00 0a \(body withheld: it may hold a password\)$/);
    expect(v.message).not.toMatch(/68 75 6e|hunter/);
    expect(v.violation.hex).toBe('70 00 00 00 0a (body withheld: it may hold a password)');
  });

  test('the first violation sticks; push and check are not mixed', () => {
    const reader = new FrameReader({ direction: 'backend' });
    expect(() => reader.push(Buffer.from('q'))).toThrow(ProtocolViolationError);
    expect(() => reader.push(msg('Z', Buffer.from('I')))).toThrow(/'q'/);
    expect(() => new FrameReader({ direction: 'backend' }).check(Buffer.alloc(0))).not.toThrow();
    const both = new FrameReader({ direction: 'backend' });
    both.check(Buffer.alloc(0));
    expect(() => both.push(Buffer.alloc(0))).toThrow(/either push\(\) or check\(\)/);
  });

  test('random garbage and mutated valid streams: every call returns or throws a violation, nothing else, never a hang', () => {
    const rnd = prng(3);
    let violations = 0;
    for (let i = 0; i < 3000; i++) {
      const bytes =
        i % 2 === 0
          ? Buffer.from(Array.from({ length: 1 + Math.floor(rnd() * 200) }, () => Math.floor(rnd() * 256)))
          : mutate(backendStream.subarray(0, 400), rnd);
      const reader = new FrameReader({ direction: i % 3 === 0 ? 'frontend' : 'backend' });
      try {
        for (const c of randomSplit(bytes, rnd, 1 + Math.floor(rnd() * 5))) reader.check(c);
        reader.end();
      } catch (err) {
        if (!(err instanceof ProtocolViolationError)) throw err;
        violations++;
      }
    }
    // Control: the garbage is mostly refused (a reader that accepted everything would pass the loop).
    expect(violations).toBeGreaterThan(2500);
  });
});

function mutate(bytes: Buffer, rnd: () => number): Buffer {
  const out = Buffer.from(bytes);
  for (let k = 0; k < 3; k++) out[Math.floor(rnd() * out.length)] = Math.floor(rnd() * 256);
  return out;
}
