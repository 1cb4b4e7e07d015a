-- ORM and driver session settings, as their connection set-up and pool resets send them.
-- Format: see migration-tools.sql.

-- Django (postgresql backend) on connect, with USE_TZ.
-- expect: session/tracked-parameter -- TimeZone is reported by the server and replayed by PgBouncer, PgCat and Odyssey
SET TIME ZONE 'UTC';

-- Rails (PostgreSQLAdapter#configure_connection).
-- expect: session/set-leak -- client_min_messages is not a tracked parameter
SET client_min_messages TO 'warning';
-- expect: session/tracked-parameter -- standard_conforming_strings is tracked
SET standard_conforming_strings = on;
-- expect: session/tracked-parameter -- IntervalStyle is tracked
SET intervalstyle = iso_8601;
-- expect: session/tracked-parameter -- SET SESSION timezone is the same tracked TimeZone
SET SESSION timezone TO 'UTC';

-- pgjdbc (old versions) and Hibernate set-up.
-- expect: session/set-leak -- extra_float_digits is not tracked by poolers
SET extra_float_digits = 3;
-- expect: session/tracked-parameter -- application_name is tracked
SET application_name = 'PostgreSQL JDBC Driver';
-- expect: none -- a SHOW reads, it does not set
SHOW TRANSACTION ISOLATION LEVEL;
-- expect: none -- SET TRANSACTION is transaction-scoped
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
-- expect: session/set-leak -- session characteristics are session-wide defaults
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED;

-- SQLAlchemy's first-connect probes.
-- expect: none -- reading a setting relies on nothing
SELECT current_setting('standard_conforming_strings');
-- expect: none -- version probe
SELECT pg_catalog.version();
-- expect: none -- reads the session's schema, sets nothing
SELECT current_schema();

-- asyncpg's connection reset when a connection returns to its pool.
-- expect: cleanup of locks/advisory-session -- releases every session lock the connection held
SELECT pg_advisory_unlock_all();
-- expect: none -- closing cursors is not tracked as state by the audit
CLOSE ALL;
-- expect: cleanup of notify/listen -- undoes every LISTEN
UNLISTEN *;
-- expect: cleanup of session/set-leak -- puts every setting back
RESET ALL;

-- node-postgres pools and psycopg pools that reset with DISCARD.
-- expect: cleanup of all -- DISCARD ALL removes every piece of session state
DISCARD ALL;
-- expect: none -- DISCARD PLANS drops cached plans only
DISCARD PLANS;

-- Statement timeouts set per request.
-- expect: session/set-leak -- per-request timeout set for the whole session
SET statement_timeout = 30000;
-- expect: none -- the same, scoped to the transaction
SET LOCAL statement_timeout = '30s';
-- expect: none -- set_config with is_local true is SET LOCAL
SELECT set_config('statement_timeout', '30s', true);

-- PHP PDO's lastInsertId() without a sequence name, and Hibernate's old identity read.
-- expect: sequences/lastval -- lastval() reads the backend's last nextval, another client's on another backend
SELECT LASTVAL();
-- expect: sequences/lastval -- currval on the serial sequence, same problem
SELECT currval(pg_get_serial_sequence('users', 'id'));
-- expect: none -- RETURNING is the pooler-safe way
INSERT INTO users (email) VALUES ('a@example.com') RETURNING id;

-- psycopg named cursors with withhold=True, and SQL-level prepared statements.
-- expect: cursors/with-hold -- a holdable cursor outlives the transaction
DECLARE "export_cursor" CURSOR WITH HOLD FOR SELECT * FROM orders;
-- expect: none -- an ordinary cursor lives inside its transaction
DECLARE "page_cursor" CURSOR FOR SELECT * FROM orders;
-- expect: prepared/sql-prepare -- PREPARE creates a statement on this backend only
PREPARE fetch_user (bigint) AS SELECT * FROM users WHERE id = $1;
-- expect: prepared/sql-prepare -- EXECUTE needs it on whatever backend it lands
EXECUTE fetch_user (42);
-- expect: cleanup of prepared/sql-prepare -- DEALLOCATE removes it
DEALLOCATE fetch_user;

-- Temporary tables for imports.
-- expect: temp/temp-table -- kept after the transaction
CREATE TEMP TABLE import_rows (id bigint, payload jsonb);
-- expect: none -- ON COMMIT DROP ends with the transaction
CREATE TEMP TABLE batch_ids (id bigint) ON COMMIT DROP;
-- expect: cleanup of temp/temp-table -- DISCARD TEMP drops the session's temp tables
DISCARD TEMP;
