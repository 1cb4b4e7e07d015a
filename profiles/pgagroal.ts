import type { Expectation, Profile } from '../engine/types.js';
import { documented } from './basis.js';

const PIPELINES = 'agroal/pgagroal@1.6.0:doc/PIPELINES.md';
const TX = `${PIPELINES}#transaction`;
const NO_DISCARD = `${TX} (pgagroal does not issue a DISCARD ALL statement when using the transaction pipeline)`;

/**
 * pgagroal 1.6 in its transaction pipeline, as doc/PIPELINES.md says: a server connection goes
 * back to the pool at the end of every transaction, with no reset, and SET, LISTEN, WITH HOLD
 * cursors and PREPARE are named as unsupported. Documented only: the 1.6.0 fixture starts, but
 * pooltest cannot run the catalogue through it until discovery treats a malformed reply to its
 * identification probe as a finding (issue 18, item 2); then these become observed.
 */
export const pgagroalTransaction: Profile = {
  name: 'pgagroal-transaction',
  title: 'pgagroal 1.6, pipeline = transaction (users vault, track_prepared_statements off)',
  pooler: 'pgagroal',
  mode: 'transaction',
  versions: '1.6.0 (documented; the fixture pgagroal-transaction starts it)',
  ref: PIPELINES,
  expect: documented({
    'session/set-leak': { outcome: 'leaked', ref: `${TX} (SET / RESET: a session based feature); ${NO_DISCARD}` },
    'session/custom-guc-leak': { outcome: 'leaked', ref: NO_DISCARD },
    'session/reset-on-disconnect': { outcome: 'leaked', ref: NO_DISCARD },
    'cursors/with-hold': { outcome: 'leaked', ref: `${TX} (WITH HOLD CURSOR: a session based feature); ${NO_DISCARD}` },
    'prepared/sql-prepare': {
      outcome: 'leaked',
      ref: `${TX} (PREPARE / DEALLOCATE: tied to the connection; DEALLOCATE ALL only with track_prepared_statements on, off by default)`,
    },
    'notify/listen': { outcome: 'misrouted', ref: `${TX} (LISTEN / NOTIFY: a session based feature)` },
    'capacity/multiplexing': {
      outcome: 'multiplexed',
      ref: `${TX} (releases the connection back to the pool after each transaction)`,
    },
  } satisfies Record<string, Expectation>),
};

/** The session pipeline: a client keeps its server connection; DISCARD ALL when it leaves. */
export const pgagroalSession: Profile = {
  name: 'pgagroal-session',
  title: 'pgagroal 1.6, pipeline = session',
  pooler: 'pgagroal',
  mode: 'session',
  versions: '1.6.0 (documented; the fixture pgagroal-session starts it)',
  ref: PIPELINES,
  expect: documented({
    'session/set-leak': { outcome: 'session', ref: `${PIPELINES}#session (supports all features of pgagroal)` },
    'session/reset-on-disconnect': {
      outcome: 'reset',
      ref: `${PIPELINES}#session (a DISCARD ALL query is run after each client session)`,
    },
    'temp/temp-table': { outcome: 'session', ref: `${PIPELINES}#session` },
    'notify/listen': { outcome: 'delivered', ref: `${PIPELINES}#session` },
    'capacity/multiplexing': { outcome: 'one-per-client', ref: `${PIPELINES}#session` },
  } satisfies Record<string, Expectation>),
};
