/**
 * PostgreSQL's own documentation, for the behaviour every pooler inherits from the server:
 * what a session owns, what a transaction scopes, what the protocol promises. Pooler profiles
 * cite these where the pooler documents "a transaction runs on one server connection" and the
 * outcome then follows from PostgreSQL itself.
 */
// Version 15, the fixtures' server: what a session owns has not changed between 14 and 18.
const PG = 'https://www.postgresql.org/docs/15/';

export const PG_DOCS = {
  /** "process per user": one backend per connection, gone when the client disconnects. */
  processPerConnection: `${PG}connect-estab.html`,
  set: `${PG}sql-set.html`,
  /** DISCARD ALL: resets the current session's state. */
  discard: `${PG}sql-discard.html`,
  /** SET LOCAL: "effective only until the end of the current transaction". */
  setLocal: `${PG}sql-set.html (SET LOCAL lasts until the end of the current transaction)`,
  searchPath: `${PG}ddl-schemas.html#DDL-SCHEMAS-PATH`,
  customOptions: `${PG}runtime-config-custom.html`,
  setRole: `${PG}sql-set-role.html`,
  /** Parameters the server reports with ParameterStatus (GUC_REPORT). */
  reportedParameters: `${PG}protocol-flow.html#PROTOCOL-ASYNC`,
  tempTable: `${PG}sql-createtable.html#SQL-CREATETABLE-TEMPORARY`,
  onCommitDrop: `${PG}sql-createtable.html (ON COMMIT DROP: the table is dropped at the end of the transaction)`,
  prepare: `${PG}sql-prepare.html (prepared statements last for the duration of the session)`,
  namedStatements: `${PG}protocol-flow.html#PROTOCOL-FLOW-EXT-QUERY (named prepared statements last until the end of the session)`,
  withHold: `${PG}sql-declare.html (WITH HOLD: the cursor outlives its transaction, within the session)`,
  sequences: `${PG}functions-sequence.html (currval and lastval are local to the session)`,
  advisoryLocks: `${PG}explicit-locking.html#ADVISORY-LOCKS`,
  notify: `${PG}sql-notify.html`,
  /** "For either normal or abnormal termination, any open transaction is rolled back." */
  termination: `${PG}protocol-flow.html#PROTOCOL-FLOW-TERMINATION`,
  cancel: `${PG}protocol-flow.html#PROTOCOL-FLOW-CANCELING-REQUESTS`,
  transactionBlock: `${PG}sql-begin.html`,
  /** Every connection gets its own backend at once, up to max_connections. */
  maxConnections: `${PG}runtime-config-connection.html#GUC-MAX-CONNECTIONS`,
} as const;
