-- Job queues: LISTEN for wake-ups, advisory locks or SKIP LOCKED to claim jobs.
-- Format: see migration-tools.sql.

-- graphile-worker.
-- expect: notify/listen -- notifications go to whichever client holds that backend
LISTEN "jobs:insert";
-- expect: none -- NOTIFY through a pooler is delivered (it is sent at commit)
SELECT pg_notify('jobs:insert', '{"count":1}');

-- Oban (Elixir) with its prefix, GoodJob (Rails), Que.
-- expect: notify/listen -- Oban's insert channel
LISTEN "public.oban_insert";
-- expect: notify/listen -- GoodJob's notifier
LISTEN good_job;
-- expect: notify/listen -- Que's per-worker channel
LISTEN que_listener_1;
-- expect: cleanup of notify/listen -- a worker stopping undoes its LISTEN
UNLISTEN que_listener_1;
-- expect: none -- NOTIFY as a statement
NOTIFY good_job, '{"queue_name":"default"}';

-- Que (older versions) claims a job with a session advisory lock in a CTE.
-- expect: locks/advisory-session -- pg_try_advisory_lock inside the job-picking query
WITH RECURSIVE jobs AS (SELECT (j).*, pg_try_advisory_lock((j).job_id) AS locked FROM (SELECT j FROM que_jobs AS j ORDER BY priority, run_at, job_id LIMIT 1) AS t1) SELECT job_id FROM jobs WHERE locked LIMIT 1;
-- expect: cleanup of locks/advisory-session -- the worker unlocks after the job
SELECT pg_advisory_unlock($1);

-- pg-boss, River, Solid Queue, Sidekiq-like tables: row locks with SKIP LOCKED.
-- expect: none -- FOR UPDATE SKIP LOCKED is a row lock inside the transaction
SELECT id, name, data FROM pgboss.job WHERE state < 'active' AND name = $1 ORDER BY priority DESC, created_on LIMIT $2 FOR UPDATE SKIP LOCKED;
-- expect: none -- the transaction-level advisory lock ends at commit
SELECT pg_advisory_xact_lock(hashtext('river_leader'));
-- expect: none -- the job update itself
UPDATE river_job SET state = 'running', attempt = attempt + 1 WHERE id = ANY($1::bigint[]);

-- A leader election done with a session lock (many schedulers do this).
-- expect: locks/advisory-session -- session-level leader lock
SELECT pg_try_advisory_lock(hashtext('scheduler-leader'));
-- expect: cleanup of locks/advisory-session -- stepping down
SELECT pg_advisory_unlock(hashtext('scheduler-leader'));
