#!/usr/bin/env bash
# Debian's PostgreSQL 15 server plus pgvector built from Debian's newer source package (bookworm has
# no pgvector package for 15). The build is cached in .cache/pgvector; a second run only reinstalls.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cache="$root/.cache/pgvector"
pgbin=/usr/lib/postgresql/15/bin

if [ "$(id -u)" != 0 ]; then echo "install-postgres.sh: run as root (apt-get, make install)" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
apt_get() { apt-get -o DPkg::Lock::Timeout=600 "$@"; }

need=()
[ -x "$pgbin/postgres" ] || need+=(postgresql-15)
dpkg -s postgresql-server-dev-15 >/dev/null 2>&1 || need+=(postgresql-server-dev-15)
if [ ${#need[@]} -gt 0 ]; then
  apt_get update -qq
  apt_get install -y -qq "${need[@]}" >/dev/null
fi

if [ -f /usr/share/postgresql/15/extension/vector.control ]; then exit 0; fi

if ! ls "$cache"/pgvector-*/Makefile >/dev/null 2>&1; then
  if [ ! -f /etc/apt/sources.list.d/pgvector-src.sources ]; then
    cat > /etc/apt/sources.list.d/pgvector-src.sources <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    apt_get update -qq
  fi
  mkdir -p "$cache"
  (cd "$cache" && apt-get source --download-only -qq pgvector 2>/dev/null && tar xzf pgvector_*.orig.tar.gz)
fi
src=$(ls -d "$cache"/pgvector-*/ | head -1)
make -s -C "$src" PG_CONFIG="$pgbin/pg_config" >/dev/null 2>&1
make -s -C "$src" PG_CONFIG="$pgbin/pg_config" install >/dev/null
echo "pgvector installed for PostgreSQL 15 from $src"
