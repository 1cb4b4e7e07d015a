import type { Profile } from '../types.js';

const PG = 'https://www.postgresql.org/docs/current/';

/** Plain PostgreSQL: every client owns its backend for as long as it is connected. */
export const direct: Profile = {
  name: 'direct',
  title: 'PostgreSQL without a pooler',
  pooler: 'none',
  mode: 'direct',
  versions: '14+',
  ref: `${PG}runtime-config-client.html`,
  expect: {
    'session/set-leak': { outcome: 'session', ref: `${PG}sql-set.html` },
    'temp/temp-table': { outcome: 'session', ref: `${PG}sql-createtable.html (TEMPORARY: dropped at the end of a session)` },
    'locks/advisory-session': { outcome: 'exclusive', ref: `${PG}explicit-locking.html#ADVISORY-LOCKS` },
    'notify/listen': { outcome: 'delivered', ref: `${PG}sql-notify.html` },
    'prepared/sql-prepare': { outcome: 'session', ref: `${PG}sql-prepare.html (prepared statements last for the session)` },
    'session/set-local': { outcome: 'scoped', ref: `${PG}sql-set.html (SET LOCAL lasts until the end of the transaction)` },
    'session/tracked-parameter': { outcome: 'session', ref: `${PG}sql-set.html` },
  },
};
