/**
 * Discovery's protocol 2.0 startup (engine/discovery/fingerprint.ts), judged from the answers
 * the fixtures gave it, byte for byte. Only pgagroal's names a pooler; its stray byte is a wire
 * finding. The real pgagroal is in test/wire/pgagroal-findings.test.ts.
 */
import { expect, test } from 'vitest';
import { classifyRefusal } from '../../engine/discovery/fingerprint.js';

const ANSWERS: Record<string, Buffer> = {
  'PostgreSQL 15': Buffer.from('EFATAL:  unsupported frontend protocol 2.0: server supports 3.0 to 3.0\n\0', 'latin1'),
  'PgBouncer 1.18 and 1.25': Buffer.from('E\0\0\0\x32SFATAL\0C08P01\0Mold V2 protocol not supported\0\0', 'latin1'),
  'pgpool-II 4.3': Buffer.from(
    'Eno PostgreSQL user name specified in startup packet\0Efailed while reading startup packet\n',
    'latin1',
  ),
  'Odyssey 1.5.1': Buffer.from('N', 'latin1'),
  nothing: Buffer.alloc(0),
};

test.each(Object.entries(ANSWERS))('%s: no pooler named, no finding', (_who, answer) => {
  expect(classifyRefusal(answer)).toEqual({ pooler: null, finding: null });
});

test('pgagroal 1.6.0: named, and the stray 0x00 after its refusal is a finding of the identification probe', () => {
  const { pooler, finding } = classifyRefusal(Buffer.from('Econnection refused\0\0', 'latin1'));
  expect(pooler).toMatchObject({ name: 'pgagroal', version: null });
  expect(finding).toMatchObject({
    probe: 'discovery.identify',
    session: 'fingerprint',
    direction: 'backend',
    type: '\\x00',
    offset: 20,
    hex: '00',
  });
});

test('the same refusal without the stray byte: named, nothing to report', () => {
  expect(classifyRefusal(Buffer.from('Econnection refused\0', 'latin1'))).toMatchObject({ finding: null });
  // A message that merely starts alike is not pgagroal's.
  expect(classifyRefusal(Buffer.from('Econnection refused by policy\0', 'latin1')).pooler).toBeNull();
});
