#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine for pooltest: the PostgreSQL, PgBouncer and pgpool-II
# packages the fixtures start, the Chromium the HTML report's browser test drives, the drivers
# and frameworks `pooltest drivers` runs, what building PgBouncer 1.25, Odyssey and pgagroal from their
# release tarballs needs and the stress-ng of the loaded test run (only those missing are
# installed), the npm dependencies, and the build. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
command -v pgpool >/dev/null 2>&1 || [ -x /usr/sbin/pgpool ] || missing+=(pgpool2)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
[ -x /usr/bin/chromium ] || missing+=(chromium)
# The drivers `pooltest drivers` runs through the pooler (drivers/agents/), with Debian's python3.
/usr/bin/python3 -c 'import asyncpg' >/dev/null 2>&1 || missing+=(python3-asyncpg)
/usr/bin/python3 -c 'import psycopg' >/dev/null 2>&1 || missing+=(python3-psycopg)
/usr/bin/python3 -c 'import psycopg2' >/dev/null 2>&1 || missing+=(python3-psycopg2)
[ -f /usr/share/java/postgresql.jar ] || missing+=(libpostgresql-jdbc-java)
command -v javac >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
ruby -e 'require "pg"' >/dev/null 2>&1 || missing+=(ruby-pg)
# pgx (Go) is built offline against Debian's Go sources; PDO pgsql (PHP) runs with php-cli.
command -v go >/dev/null 2>&1 || missing+=(golang-go)
[ -d /usr/share/gocode/src/github.com/jackc/pgx/v4 ] || missing+=(golang-github-jackc-pgx-v4-dev)
command -v php >/dev/null 2>&1 || missing+=(php-cli)
php -r 'exit(extension_loaded("pdo_pgsql") ? 0 : 1);' >/dev/null 2>&1 || missing+=(php-pgsql)
# The frameworks it runs on those drivers: ActiveRecord, Django, SQLAlchemy (asyncio, asyncpg dialect).
ruby -e 'require "active_record"' >/dev/null 2>&1 || missing+=(ruby-activerecord)
/usr/bin/python3 -c 'import django' >/dev/null 2>&1 || missing+=(python3-django)
/usr/bin/python3 -c 'import sqlalchemy.ext.asyncio' >/dev/null 2>&1 || missing+=(python3-sqlalchemy)
# Build dependencies of the poolers built from source (fixtures/pooler-build.ts), as listed by
# the README beside their tarballs, which live outside the repository (POOLTEST_POOLER_SOURCES,
# see fixtures/README.md). dpkg-query is cheap and exact for libraries without a command.
for pkg in build-essential autoconf automake libtool pkg-config cmake libevent-dev libssl-dev libc-ares-dev \
  libsystemd-dev libev-dev libcjson-dev python3-docutils; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
# The CPU load of `npm run test:loaded` (scripts/load-test.ts; busy Node processes without it).
command -v stress-ng >/dev/null 2>&1 || missing+=(stress-ng)

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  # Package scripts may try to start the system services on their default ports; the
  # fixtures never use those, they start their own servers on free ports.
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

npm ci --no-audit --no-fund
npm run build
