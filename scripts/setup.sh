#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine for pooltest: the PostgreSQL, PgBouncer and pgpool-II
# packages the fixtures start, the Chromium the HTML report's browser test drives and the
# stress-ng of the loaded test run (only those missing are installed), the npm dependencies,
# and the build. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
command -v pgpool >/dev/null 2>&1 || [ -x /usr/sbin/pgpool ] || missing+=(pgpool2)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
[ -x /usr/bin/chromium ] || missing+=(chromium)
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
