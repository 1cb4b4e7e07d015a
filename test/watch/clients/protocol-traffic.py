# The traffic the protocol checks concern, sent by real libpq (through psycopg 3): COPY in and
# out (one in a transaction block, one abandoned with CopyFail), then a libpq pipeline of three
# rounds, each ended by its own Sync before any answer is read: a named statement parsed in the
# first and bound in the third, a division by zero in the second. Last, a connection that leaves
# with two pipelined rounds unanswered. `control` sends the same statements one round at a
# time, with no COPY: the watch must see none of that traffic then.
#
#   python3 protocol-traffic.py CONNINFO [control]
import os
import sys

import psycopg
from psycopg import pq

conninfo = sys.argv[1]
control = len(sys.argv) > 2 and sys.argv[2] == 'control'


def rounds(conn, statements):
    """Sends each (name, sql, params) as its own round: prepared when named, then a Sync."""
    pg = conn.pgconn
    pg.enter_pipeline_mode()
    for name, sql, params in statements:
        if name and sql:
            pg.send_prepare(name, sql)
        if name:
            pg.send_query_prepared(name, params)
        else:
            pg.send_query_params(sql, params)
        pg.pipeline_sync()
    pg.flush()


def drain(conn, syncs):
    """Reads results until `syncs` PGRES_PIPELINE_SYNC came back."""
    pg = conn.pgconn
    seen = 0
    while seen < syncs:
        r = pg.get_result()
        if r is None:
            continue
        if r.status == pq.ExecStatus.PIPELINE_SYNC:
            seen += 1
    pg.exit_pipeline_mode()


PIPELINE = [
    (b'tp_next', b'SELECT $1::int + 1', [b'1']),
    (None, b'SELECT 1 / $1::int', [b'0']),
    (b'tp_next', None, [b'2']),
]

with psycopg.connect(conninfo, autocommit=True) as conn:
    conn.execute('CREATE TEMP TABLE tp_rows (n int)')
    if control:
        conn.execute('INSERT INTO tp_rows VALUES (1), (2)')
        conn.execute('SELECT %s::int + 1', [1], prepare=True)
        try:
            conn.execute('SELECT 1 / %s::int', [0])
        except psycopg.errors.DivisionByZero:
            pass
    else:
        with conn.cursor().copy('COPY tp_rows FROM STDIN') as copy:
            copy.write_row([1])
            copy.write_row([2])
        with conn.transaction():
            with conn.cursor().copy('COPY (SELECT n FROM tp_rows ORDER BY n) TO STDOUT') as copy:
                rows = list(copy.rows())
        try:
            with conn.cursor().copy('COPY tp_rows FROM STDIN') as copy:
                copy.write_row([3])
                raise RuntimeError('abandon the COPY')
        except psycopg.errors.QueryCanceled:
            # psycopg sent CopyFail; the server's answer comes back as this error.
            pass
        rounds(conn, PIPELINE)
        drain(conn, len(PIPELINE))

print('done', flush=True)
if not control:
    # Leaves with two rounds in flight: the socket closes before any answer is read.
    conn = psycopg.connect(conninfo, autocommit=True)
    rounds(conn, [(None, b'SELECT pg_sleep(0.2)', None), (None, b'SELECT 2', None)])
    os._exit(0)

