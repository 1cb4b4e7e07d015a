-- Migration tools. Each statement is preceded by the finding the audit must report for it:
-- a check id, "none", or "cleanup of <check>" (several joined with " + "), then "--" and why.

-- node-pg-migrate 9 (lock mode "wait"), from its bundle: lock() and unlock().
-- expect: locks/advisory-session -- a session-level lock outlives the transaction; another client on that backend "holds" it too
SELECT pg_advisory_lock(7241865325823964);
-- expect: locks/advisory-session -- node-pg-migrate's default "fail" mode: try-lock is still session level
SELECT pg_try_advisory_lock(7241865325823964) AS "lockObtained";
-- expect: cleanup of locks/advisory-session -- the unlock undoes the lock above; it breaks nothing itself
SELECT pg_advisory_unlock(7241865325823964) AS "lockReleased";
-- expect: session/search-path-leak -- node-pg-migrate sets the schema list for the whole session
SET search_path TO "public", "migrations";
-- expect: none -- reading the catalogue relies on no session state
SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'pgmigrations';

-- golang-migrate: the lock key is a parameter.
-- expect: locks/advisory-session -- same session-level lock, key bound as $1
SELECT pg_advisory_lock($1);
-- expect: cleanup of locks/advisory-session -- its unlock
SELECT pg_advisory_unlock($1);

-- Rails (ActiveRecord::Migrator): try-lock and unlock with its fixed key.
-- expect: locks/advisory-session -- session-level try-lock
SELECT pg_try_advisory_lock(3449364651186113330);
-- expect: cleanup of locks/advisory-session -- Rails releases it after the migrations
SELECT pg_advisory_unlock(3449364651186113330);
-- expect: none -- the schema_migrations insert is plain SQL
INSERT INTO "schema_migrations" ("version") VALUES ('20260101000000') RETURNING "version";

-- Flyway (transactional lock mode): the lock ends with the transaction.
-- expect: none -- pg_try_advisory_xact_lock is released at commit, so no pooler can carry it anywhere
SELECT pg_try_advisory_xact_lock(77431708279161);
-- expect: none -- Flyway's history table update
UPDATE "flyway_schema_history" SET "success" = true WHERE "installed_rank" = 4;

-- Prisma Migrate: a session lock for the whole migration run.
-- expect: locks/advisory-session -- Prisma's fixed key, session level
SELECT pg_advisory_lock(72707369);
-- expect: cleanup of locks/advisory-session -- released at the end
SELECT pg_advisory_unlock(72707369);

-- Liquibase uses a lock table instead of advisory locks.
-- expect: none -- a row lock in a table, ordinary SQL
UPDATE databasechangeloglock SET locked = TRUE, lockedby = 'ci-runner' WHERE id = 1 AND locked = FALSE;

-- Typical migration bodies: DDL with the settings they need, done right and done wrong.
-- expect: session/set-leak -- a migration that raises the timeout for the session leaves it on the backend
SET statement_timeout = 0;
-- expect: none -- SET LOCAL ends with the migration's transaction
SET LOCAL lock_timeout = '5s';
-- expect: none -- ordinary DDL
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_customer_idx ON orders (customer_id);
-- expect: cleanup of session/set-leak -- puts the timeout back
RESET statement_timeout;
-- expect: none -- a function body's SET runs nothing when the function is created
CREATE FUNCTION touch_updated_at() RETURNS trigger LANGUAGE plpgsql SET search_path = public AS $$ BEGIN NEW.updated_at := now(); RETURN NEW; END $$;
-- expect: session/set-leak -- the migration lowers its log noise for the session (a plain GUC)
SET client_min_messages TO warning;
