#!/usr/bin/python3
"""
pooltest agents for Python frameworks, on agent.py's line protocol: the framework's own code
path runs every statement, configured as an application configures it (the options it is given
are what settings.py or the engine URL would say).

  django      Django's ORM on psycopg2. query: a model query over pg_stat_activity (this
              backend's own row). cursor: QuerySet.iterator(chunk_size=N), which in autocommit
              DECLAREs a WITH HOLD cursor (_django_curs_<thread>_<task>_<n>) and FETCHes from
              it in later transactions. The first cursor step starts the iterator and reads one
              chunk; the next one reads the rest, then asks the backend's pid through Django's
              connection, so the record shows where the later FETCHes (or, with
              DISABLE_SERVER_SIDE_CURSORS, nothing at all) ran.
  sqlalchemy  SQLAlchemy's AsyncSession on the asyncpg dialect: every query is a unit of work
              (session.begin(), execute, commit), and the dialect prepares every statement
              through asyncpg (__asyncpg_stmt_<n>__), cached per connection unless the URL says
              prepared_statement_cache_size=0.

Usage: frameworks.py django|sqlalchemy
"""
import asyncio
import atexit
import builtins
import io
import os
import queue
import re
import shutil
import sys
import tempfile
import threading
from urllib.parse import unquote, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agent  # noqa: E402  (the shared line loop)

MARKER = re.compile(r"/\*\s*(.*?)\s*\*/")


def marker_of(sql):
    """The step's marker comment (pooltest's cleanup finds the framework's statements by it)."""
    m = MARKER.search(sql)
    return m.group(1) if m else "pooltest"


class Django:
    def __init__(self):
        import django

        self.django = django
        self.iterator = None

    def connect(self, step):
        from django.conf import settings

        u = urlsplit(step["url"])
        database = {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(u.path.lstrip("/")),
            "USER": unquote(u.username or ""),
            "PASSWORD": unquote(u.password or ""),
            "HOST": u.hostname,
            "PORT": str(u.port or 5432),
            "OPTIONS": {"connect_timeout": 10},
            **(step.get("options") or {}),
        }
        # An empty app whose migrations the migrate step writes (a folder of its own, removed at exit).
        self.apps_dir = tempfile.mkdtemp(prefix="pooltest-django-")
        atexit.register(shutil.rmtree, self.apps_dir, True)
        os.makedirs(os.path.join(self.apps_dir, "pooltest_probe"))
        open(os.path.join(self.apps_dir, "pooltest_probe", "__init__.py"), "w").close()
        sys.path.insert(0, self.apps_dir)
        settings.configure(DATABASES={"default": database}, INSTALLED_APPS=["pooltest_probe"], USE_TZ=False)
        self.django.setup()
        from django.db import connection, models

        # Unmanaged models over catalogs every login can read: nothing to create or drop.
        class Activity(models.Model):
            pid = models.IntegerField(primary_key=True)
            state = models.TextField()

            class Meta:
                app_label = "pooltest"
                managed = False
                db_table = "pg_stat_activity"

        class PgType(models.Model):
            oid = models.IntegerField(primary_key=True)

            class Meta:
                app_label = "pooltest"
                managed = False
                db_table = "pg_type"

        self.Activity, self.PgType, self.connection = Activity, PgType, connection
        connection.ensure_connection()
        return {}

    def query(self, step):
        from django.db import transaction
        from django.db.models import IntegerField, Value
        from django.db.models.expressions import RawSQL

        own = RawSQL(f"pg_backend_pid() /* {marker_of(step['sql'])} */", ())
        runs = self.partial
        for _ in range(step.get("times", 1)):
            qs = (
                self.Activity.objects.filter(state="active", pid=own)
                .annotate(answer=Value(int(step["param"]), output_field=IntegerField()))
                .values("pid", "answer")
            )
            if step.get("tx"):
                with transaction.atomic():
                    row = qs.first()
            else:
                row = qs.first()
            runs.append(dict(row) if row else {"pid": None})
        return {"runs": runs}

    def cursor(self, step):
        from django.db.models.expressions import RawSQL

        runs = self.partial
        if self.iterator is None:
            pid = RawSQL(f"pg_backend_pid() /* {marker_of(step['sql'])} */", ())
            qs = self.PgType.objects.annotate(pid=pid).order_by("oid").values("pid", "oid")[: int(step["param"])]
            self.iterator = qs.iterator(chunk_size=int(step["fetch"]))
            for _ in range(int(step["fetch"])):
                runs.append(dict(next(self.iterator)))
            return {"runs": runs}
        try:
            for row in self.iterator:
                runs.append(dict(row))
        finally:
            self.iterator = None
        with self.connection.cursor() as cur:
            cur.execute("SELECT pg_backend_pid()")
            return {"runs": runs, "pid": cur.fetchone()[0]}

    def migrate(self, step):
        """`manage.py migrate` of a one-migration app, in two steps as the ActiveRecord agent's:
        the first answers from inside the migration (a RunPython in its transaction: the
        backend, read through Django's connection; Django takes no lock), the second lets it
        finish. Its bookkeeping table gets the run's prefix (pooltest drops it afterwards)."""
        if getattr(self, "migration", None) is not None:
            return self.finish_migration()
        from django.core.management import call_command
        from django.db.migrations.recorder import MigrationRecorder

        MigrationRecorder.Migration._meta.db_table = f"{step['prefix']}django_migrations"
        folder = os.path.join(self.apps_dir, "pooltest_probe", "migrations")
        os.makedirs(folder)
        open(os.path.join(folder, "__init__.py"), "w").close()
        with open(os.path.join(folder, "0001_probe.py"), "w") as f:
            f.write(PROBE_MIGRATION)
        reported, go = queue.Queue(), threading.Event()

        def probe(apps, schema_editor):
            with schema_editor.connection.cursor() as cur:
                cur.execute("SELECT pg_backend_pid()")
                reported.put({"pid": cur.fetchone()[0], "lockPid": None, "lockId": None, "locking": False})
            go.wait()

        builtins.pooltest_migration = probe
        outcome = {}

        def run():
            try:
                call_command("migrate", "pooltest_probe", verbosity=0, stdout=io.StringIO())
            except Exception as exc:  # the framework's own error is the answer
                outcome["error"] = exc
            finally:
                reported.put(None)

        self.migration = (threading.Thread(target=run, daemon=True), go, outcome)
        self.migration[0].start()
        report = reported.get()
        if report is None:
            return self.finish_migration()
        return {"runs": [report], "pid": report["pid"]}

    def finish_migration(self):
        thread, go, outcome = self.migration
        self.migration = None
        go.set()
        thread.join()
        if "error" in outcome:
            raise outcome["error"]
        return {"runs": [{"migrated": True}]}

    def pid(self, _):
        with self.connection.cursor() as cur:
            cur.execute("SELECT pg_backend_pid()")
            return {"pid": cur.fetchone()[0]}

    def close(self, _):
        if getattr(self, "connection", None) is not None:
            self.connection.close()
        return {}


# The probe app's one migration: a RunPython in the migration's transaction, calling the agent.
PROBE_MIGRATION = """
import builtins
from django.db import migrations


def probe(apps, schema_editor):
    builtins.pooltest_migration(apps, schema_editor)


class Migration(migrations.Migration):
    initial = True
    dependencies = []
    operations = [migrations.RunPython(probe, migrations.RunPython.noop)]
"""


class Sqlalchemy:
    def __init__(self):
        import sqlalchemy
        from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine

        self.sa = sqlalchemy
        self.create_async_engine = create_async_engine
        self.AsyncSession = AsyncSession
        self.loop = asyncio.new_event_loop()
        self.engine = None

    def run(self, coro):
        return self.loop.run_until_complete(coro)

    def connect(self, step):
        # The options are the URL's query, as the dialect's documentation writes them.
        url = re.sub(r"^postgres(ql)?://", "postgresql+asyncpg://", step["url"])
        url = re.sub(r"[?&]sslmode=[^&]*", "", url)
        query = "&".join(f"{k}={v}" for k, v in (step.get("options") or {}).items())
        url = f"{url}{'&' if '?' in url else '?'}{query}" if query else url
        # One connection, as agent.py's drivers have: the pool never opens a second one.
        self.engine = self.create_async_engine(url, pool_size=1, max_overflow=0, connect_args={"timeout": 10})

        async def first():
            async with self.engine.connect() as conn:
                await conn.execute(self.sa.text("SELECT 1"))

        self.run(first())
        return {}

    def query(self, step):
        # asyncpg's $1 as SQLAlchemy's bound parameter (a cast written out: text() reads
        # ":answer::int" as no parameter at all).
        sql = re.sub(r"\$1::(\w+)", r"CAST(:answer AS \1)", step["sql"]).replace("$1", ":answer")
        statement = self.sa.text(sql)
        runs = self.partial

        async def unit():
            async with self.AsyncSession(self.engine) as session:
                async with session.begin():
                    result = await session.execute(statement, {"answer": int(step["param"])})
                    return dict(result.mappings().one())

        for _ in range(step.get("times", 1)):
            runs.append(self.run(unit()))
        return {"runs": runs}

    def pid(self, _):
        async def ask():
            async with self.engine.connect() as conn:
                return (await conn.execute(self.sa.text("SELECT pg_backend_pid()"))).scalar()

        return {"pid": self.run(ask())}

    def close(self, _):
        if self.engine is not None:
            self.run(asyncio.wait_for(self.engine.dispose(), 5))
        self.engine = None
        return {}


if __name__ == "__main__":
    agent.DRIVERS.update({"django": Django, "sqlalchemy": Sqlalchemy})
    sys.exit(agent.main())
