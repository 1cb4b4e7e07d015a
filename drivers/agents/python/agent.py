#!/usr/bin/python3
"""
A pooltest driver agent for Python's PostgreSQL drivers: asyncpg, psycopg (3) and psycopg2.

pooltest writes one JSON object a line on stdin (a step) and reads one JSON object a line on
stdout (its answer). The agent does exactly what an application using the driver would do,
with the driver's own API and the options it was given, and reports what the driver said:
rows (every query reads pg_backend_pid() so pooltest can prove where it ran), or the
exception's class and message and the server's SQLSTATE verbatim. It exits at end of input,
so it never outlives pooltest. Steps:

  {"op": "connect", "url": "...", "options": {...}, "autocommit": true}
  {"op": "query", "sql": "... $1 ...", "param": 42, "times": 6, "tx": false}
  {"op": "begin"} / {"op": "commit"} / {"op": "rollback"}
  {"op": "cursor", "sql": "... $1 ...", "param": 10, "fetch": 3}   (inside its own transaction)
  {"op": "batch", "sql": "... $1 ... $2 ...", "params": [[1, 1], [1, 2], ...], "tx": false}
  {"op": "pid"} / {"op": "close"}

The batch op sends every parameter set of `params` with the driver's OWN batch or pipeline call,
once (never a loop of round trips written here): asyncpg `executemany`, psycopg 3 `conn.pipeline()`,
psycopg2 `psycopg2.extras.execute_batch` (which joins the statements into one multi-statement
string on the client), pgjdbc `addBatch` + `executeBatch`, postgres.js queries issued without
awaiting (it pipelines them on its connection), ruby-pg pipeline mode (`pipeline_sync`, libpq 14+),
pgx `SendBatch`. With "tx": true the batch runs inside one transaction opened and committed
through the driver's transaction API; otherwise in autocommit. The statement returns no rows
(pgjdbc's executeBatch refuses a statement that does): it writes where it ran into a table that
pooltest reads afterwards. The answer is {"ok": true, "runs": [{"api": "<the call>", "statements": N}]}.
A driver without a batch API answers {"ok": false, "error": {"type": "Unsupported", "message":
"<why>"}}, which pooltest reports as the reason the batch was not run.

Usage: agent.py asyncpg|psycopg|psycopg2
"""
import asyncio
import json
import os
import re
import sys
import threading
import time
import traceback


def sqlstate_of(exc):
    """The server's SQLSTATE: on the exception itself, or on the driver error a framework wrapped
    (SQLAlchemy's .orig, Django's and asyncpg's chained causes)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        code = getattr(exc, "sqlstate", None) or getattr(exc, "pgcode", None)
        if code:
            return code
        exc = getattr(exc, "orig", None) or exc.__cause__
    return None


def error_of(exc):
    """The driver's exception as pooltest records it: class, message, SQLSTATE."""
    sqlstate = sqlstate_of(exc)
    return {
        "type": type(exc).__name__,
        "message": str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc),
        "sqlstate": sqlstate,
    }


def param_sets(step):
    return [tuple(p) for p in step["params"]]


def batch_answer(api, step):
    return {"runs": [{"api": api, "statements": len(step["params"])}]}


class Asyncpg:
    """asyncpg: the statement cache (statement_cache_size, default 100) names every query."""

    def __init__(self):
        import asyncpg

        self.asyncpg = asyncpg
        self.loop = asyncio.new_event_loop()
        self.conn = None
        self.tx = None

    def run(self, coro):
        return self.loop.run_until_complete(coro)

    def connect(self, step):
        opts = dict(step.get("options") or {})
        self.conn = self.run(self.asyncpg.connect(step["url"], timeout=10, **opts))
        return {}

    def query(self, step):
        runs = self.partial
        for _ in range(step.get("times", 1)):
            if step.get("tx"):
                async def unit():
                    async with self.conn.transaction():
                        return await self.conn.fetchrow(step["sql"], step["param"])
                row = self.run(unit())
            else:
                row = self.run(self.conn.fetchrow(step["sql"], step["param"]))
            runs.append(dict(row))
        return {"runs": runs}

    def cursor(self, step):
        async def go():
            rows = self.partial
            async with self.conn.transaction():
                async for r in self.conn.cursor(step["sql"], step["param"], prefetch=step["fetch"]):
                    rows.append(dict(r))
            return rows
        return {"runs": self.run(go())}

    def batch(self, step):
        async def go():
            if step.get("tx"):
                async with self.conn.transaction():
                    await self.conn.executemany(step["sql"], param_sets(step))
            else:
                await self.conn.executemany(step["sql"], param_sets(step))
        self.run(go())
        return batch_answer("executemany", step)

    def begin(self, _):
        self.tx = self.conn.transaction()
        self.run(self.tx.start())
        return {}

    def commit(self, _):
        self.run(self.tx.commit())
        self.tx = None
        return {}

    def rollback(self, _):
        self.run(self.tx.rollback())
        self.tx = None
        return {}

    def pid(self, _):
        return {"pid": self.run(self.conn.fetchval("SELECT pg_backend_pid()"))}

    def close(self, _):
        if self.conn is not None:
            self.run(asyncio.wait_for(self.conn.close(), 5))
        self.conn = None
        return {}


class Psycopg:
    """psycopg 3: a query run prepare_threshold times (default 5) is prepared as _pg3_N."""

    def __init__(self):
        import psycopg

        self.psycopg = psycopg
        self.conn = None

    @staticmethod
    def sql(text):
        # Every parameter of pooltest's statements is used once, in order: $n is psycopg's %s.
        return re.sub(r"\$\d+", "%s", text)

    def connect(self, step):
        opts = dict(step.get("options") or {})
        self.conn = self.psycopg.connect(
            step["url"], autocommit=step.get("autocommit", True), connect_timeout=10, **opts
        )
        return {}

    def query(self, step):
        runs = self.partial
        for _ in range(step.get("times", 1)):
            if step.get("tx"):
                with self.conn.transaction():
                    cur = self.conn.execute(self.sql(step["sql"]), (step["param"],))
            else:
                cur = self.conn.execute(self.sql(step["sql"]), (step["param"],))
            names = [d.name for d in cur.description]
            runs.append(dict(zip(names, cur.fetchone())))
        return {"runs": runs}

    def cursor(self, step):
        rows = self.partial
        with self.conn.transaction():
            with self.conn.cursor(name="pooltest_cursor") as cur:
                cur.itersize = step["fetch"]
                cur.execute(self.sql(step["sql"]), (step["param"],))
                names = [d.name for d in cur.description]
                for r in cur:
                    rows.append(dict(zip(names, r)))
        return {"runs": rows}

    def batch(self, step):
        sql = self.sql(step["sql"])
        # Pipeline mode: every execute is sent without waiting for the one before; the block's
        # end sends the Sync and reads the results (and raises the first error).
        with self.conn.pipeline():
            if step.get("tx"):
                with self.conn.transaction():
                    for params in param_sets(step):
                        self.conn.execute(sql, params)
            else:
                for params in param_sets(step):
                    self.conn.execute(sql, params)
        return batch_answer("pipeline", step)

    def begin(self, _):
        self.conn.execute("BEGIN")
        return {}

    def commit(self, _):
        self.conn.execute("COMMIT")
        return {}

    def rollback(self, _):
        self.conn.execute("ROLLBACK")
        return {}

    def pid(self, _):
        return {"pid": self.conn.execute("SELECT pg_backend_pid()").fetchone()[0]}

    def close(self, _):
        if self.conn is not None:
            self.conn.close()
        self.conn = None
        return {}


class Psycopg2(Psycopg):
    """psycopg2: parameters interpolated on the client, simple protocol: nothing is named."""

    def __init__(self):
        import psycopg2

        self.psycopg2 = psycopg2
        self.conn = None

    def connect(self, step):
        opts = dict(step.get("options") or {})
        # Not a connection option: which of psycopg2.extras' batch helpers the batch op uses.
        self.batch_api = opts.pop("batch", "execute_batch")
        self.conn = self.psycopg2.connect(step["url"], connect_timeout=10, **opts)
        self.conn.autocommit = step.get("autocommit", True)
        return {}

    def execute(self, text, params):
        cur = self.conn.cursor()
        cur.execute(text, params)
        return cur

    def query(self, step):
        runs = self.partial
        for _ in range(step.get("times", 1)):
            if step.get("tx") and self.conn.autocommit:
                self.execute("BEGIN", None)
            cur = self.execute(self.sql(step["sql"]), (step["param"],))
            names = [d.name for d in cur.description]
            runs.append(dict(zip(names, cur.fetchone())))
            if step.get("tx") or not self.conn.autocommit:
                self.conn.commit() if not self.conn.autocommit else self.execute("COMMIT", None)
        return {"runs": runs}

    def cursor(self, step):
        # A named (server-side) cursor needs a transaction: psycopg2 refuses one in autocommit.
        was = self.conn.autocommit
        self.conn.autocommit = False
        rows = self.partial
        try:
            cur = self.conn.cursor(name="pooltest_cursor")
            cur.itersize = step["fetch"]
            cur.execute(self.sql(step["sql"]), (step["param"],))
            names = None
            for r in cur:
                names = names or [d.name for d in cur.description]
                rows.append(dict(zip(names, r)))
            cur.close()
            self.conn.commit()
        finally:
            self.conn.autocommit = was
        return {"runs": rows}

    def batch(self, step):
        from psycopg2.extras import execute_batch, execute_values

        # Both helpers interpolate the parameters on the client and send one simple Query per
        # page (page_size rows): execute_batch joins the statements ("INSERT ...;INSERT ...;"),
        # execute_values makes one INSERT of many VALUES rows. A page is one implicit
        # transaction on one backend, whatever the pooler does.
        tx = step.get("tx") and self.conn.autocommit
        cur = self.conn.cursor()
        sql = self.sql(step["sql"])
        if tx:
            cur.execute("BEGIN")
        try:
            if self.batch_api == "execute_values":
                # "INSERT ... VALUES (row) /* c */" as execute_values' "INSERT ... VALUES %s /* c */" and its row template.
                m = re.match(r"^(.*\bVALUES\s*)(\(.*\))(.*)$", sql, re.S)
                execute_values(cur, m.group(1) + "%s" + m.group(3), param_sets(step), template=m.group(2),
                               page_size=len(step["params"]))
            else:
                execute_batch(cur, sql, param_sets(step), page_size=len(step["params"]))
        except Exception:
            if tx and not self.conn.closed:
                try:
                    cur.execute("ROLLBACK")
                except Exception:
                    pass
            raise
        if tx:
            cur.execute("COMMIT")
        elif not self.conn.autocommit:
            self.conn.commit()
        return batch_answer(self.batch_api, step)

    def begin(self, _):
        self.execute("BEGIN", None)
        return {}

    def commit(self, _):
        self.execute("COMMIT", None)
        return {}

    def rollback(self, _):
        self.execute("ROLLBACK", None)
        return {}

    def pid(self, _):
        return {"pid": self.execute("SELECT pg_backend_pid()", None).fetchone()[0]}


DRIVERS = {"asyncpg": Asyncpg, "psycopg": Psycopg, "psycopg2": Psycopg2}


def version_of(name):
    module = __import__(name)
    return str(getattr(module, "__version__", "?")).split(" ")[0]


def exit_with_parent():
    """A driver call blocked on the network reads no stdin, so end of input alone cannot stop us:
    when pooltest's process is gone (we were re-parented), exit at once."""
    parent = os.getppid()

    def watch():
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def main():
    exit_with_parent()
    name = sys.argv[1] if len(sys.argv) > 1 else ""
    if name not in DRIVERS:
        print(json.dumps({"ok": False, "error": {"type": "usage", "message": f"unknown driver {name!r}"}}), flush=True)
        return 2
    try:
        agent = DRIVERS[name]()
        hello = {"ok": True, "driver": name, "version": version_of(name)}
    except Exception as exc:  # the driver is not installed: pooltest skips this agent with the reason
        print(json.dumps({"ok": False, "error": error_of(exc)}), flush=True)
        return 3
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        step = json.loads(line)
        # What a query step ran before the driver raised stays in the answer (partial runs).
        agent.partial = []
        try:
            answer = {"ok": True, **getattr(agent, step["op"])(step)}
        except Exception as exc:
            answer = {"ok": False, "error": error_of(exc), "runs": agent.partial}
            if step.get("debug"):
                answer["trace"] = traceback.format_exc()
        print(json.dumps(answer, default=str), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
