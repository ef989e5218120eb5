#!/usr/bin/env bash
# PostgreSQL and Redis from Debian's packages, on loopback, for the cluster
# tests and the multi-process bench (issue 8). Throwaway instances: data lives
# in a scratch directory and is deleted by `stop`.
#
#   .ci/services.sh install        apt-get install postgresql redis-server when missing
#   .ci/services.sh start          install if needed, start them, print `export ...` lines
#   .ci/services.sh env            print the `export ...` lines of the running instances
#   .ci/services.sh restart-redis [PORT]
#                                  stop a Redis of ours (the first, or the one on PORT) and start
#                                  it again (empty: nothing is persisted)
#   .ci/services.sh status         say what runs
#   .ci/services.sh stop           stop both and delete their data
#
# Use: eval "$(.ci/services.sh start)"   (diagnostics go to stderr, exports to stdout)
#
# Two Redis instances: REDIS_URL for the service tests and CLUSTER_REDIS_URL for the cluster
# tests, which stop and restart theirs. With one each, the two can run at the same time.
#
# Settings (environment):
#   CHARLA_SERVICES_DIR  scratch directory (default /tmp/charla-services)
#   PG_PORT              first port tried for PostgreSQL (default 55432)
#   REDIS_PORT           first port tried for Redis (default 56379; the cluster tests' Redis
#                        takes the next free one)
#   PG_DATABASE          database created for the tests (default charla_test)
set -euo pipefail

DIR="${CHARLA_SERVICES_DIR:-/tmp/charla-services}"
PG_DATA="$DIR/pg"
PG_LOG="$DIR/pg.log"
STATE="$DIR/state.env"
PG_DATABASE="${PG_DATABASE:-charla_test}"
export DEBIAN_FRONTEND=noninteractive

say() { printf '[services] %s\n' "$*" >&2; }
die() {
  say "error: $*"
  exit 1
}

is_root() { [ "$(id -u)" -eq 0 ]; }

as_root() {
  if is_root; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo -E "$@"; else die "need root for: $*"; fi
}

# PostgreSQL refuses to run as root: as root we run its tools as the postgres user.
as_pg() {
  if is_root; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Debian keeps the server tools in /usr/lib/postgresql/<major>/bin; pick the newest.
pg_bindir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$dir" ] && [ -x "$dir/pg_ctl" ]; then
    echo "$dir"
    return 0
  fi
  if command -v pg_ctl >/dev/null 2>&1; then
    local real
    real=$(readlink -f "$(command -v pg_ctl)")
    # A link left behind by a removed package is not a PostgreSQL.
    if [ -x "$real" ] && [ -x "$(dirname "$real")/initdb" ]; then
      dirname "$real"
      return 0
    fi
  fi
  return 1
}

have_pg() { pg_bindir >/dev/null 2>&1 && command -v psql >/dev/null 2>&1; }
have_redis() { command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; }

cmd_install() {
  local pkgs=()
  have_pg || pkgs+=(postgresql)
  have_redis || pkgs+=(redis-server)
  if [ ${#pkgs[@]} -eq 0 ]; then
    say "PostgreSQL ($(pg_bindir)) and Redis ($(redis-server --version | awk '{print $3}' | sed 's/^v=//')) already installed"
    return 0
  fi
  say "installing ${pkgs[*]} from Debian's packages"
  as_root apt-get update -q >&2
  as_root apt-get install -y -q --no-install-recommends "${pkgs[@]}" >&2
  # The Debian package starts a default cluster and a system Redis; we use our
  # own throwaway instances, so stop those if the package started them.
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    for cluster in /etc/postgresql/*/main; do
      [ -d "$cluster" ] || continue
      local ver
      ver=$(basename "$(dirname "$cluster")")
      as_root pg_ctlcluster "$ver" main stop >/dev/null 2>&1 || true
    done
  fi
  as_root redis-cli -p 6379 shutdown nosave >/dev/null 2>&1 || true
  have_pg || die "PostgreSQL still missing after install"
  have_redis || die "Redis still missing after install"
}

port_free() {
  node -e '
    const s = require("net").createServer();
    s.once("error", () => process.exit(1));
    s.listen(Number(process.argv[1]), "127.0.0.1", () => s.close(() => process.exit(0)));
  ' "$1" 2>/dev/null
}

# First free port from $1 on (20 tries).
free_port_from() {
  local port=$1
  for _ in $(seq 1 20); do
    if port_free "$port"; then
      echo "$port"
      return 0
    fi
    port=$((port + 1))
  done
  return 1
}

load_state() {
  if [ -f "$STATE" ]; then
    # shellcheck disable=SC1090
    . "$STATE"
  fi
}

pg_running() {
  [ -f "$PG_DATA/postmaster.pid" ] && as_pg "$(pg_bindir)/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1
}

# Whether the Redis on port $1 answers.
redis_up() {
  [ -n "${1:-}" ] && redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null | grep -q PONG
}

# Starts an empty, unsaved Redis on port $1 (its pid and log files named after the port).
start_redis() {
  local port=$1
  redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
    --dir "$DIR" --pidfile "$DIR/redis-$port.pid" --logfile "$DIR/redis-$port.log" >&2
  for _ in $(seq 1 50); do
    if redis_up "$port"; then return 0; fi
    sleep 0.1
  done
  tail -n 20 "$DIR/redis-$port.log" >&2 || true
  die "Redis did not answer on 127.0.0.1:$port"
}

print_env() {
  load_state
  [ -n "${PG_PORT_USED:-}" ] || die "no services started (run: .ci/services.sh start)"
  echo "export DATABASE_URL=postgres://postgres@127.0.0.1:${PG_PORT_USED}/${PG_DATABASE}"
  echo "export REDIS_URL=redis://127.0.0.1:${REDIS_PORT_USED}"
  [ -z "${CLUSTER_REDIS_PORT_USED:-}" ] || echo "export CLUSTER_REDIS_URL=redis://127.0.0.1:${CLUSTER_REDIS_PORT_USED}"
}

cmd_start() {
  have_pg && have_redis || cmd_install
  mkdir -p "$DIR"
  chmod 0777 "$DIR" # the postgres user writes its cluster and socket here
  load_state
  local bindir
  bindir=$(pg_bindir)

  # PostgreSQL
  if pg_running; then
    say "PostgreSQL already running on 127.0.0.1:$PG_PORT_USED"
  else
    PG_PORT_USED=$(free_port_from "${PG_PORT:-55432}") || die "no free port for PostgreSQL"
    if [ ! -f "$PG_DATA/PG_VERSION" ]; then
      rm -rf "$PG_DATA"
      mkdir -p "$PG_DATA"
      is_root && chown postgres: "$PG_DATA"
      chmod 0700 "$PG_DATA"
      as_pg "$bindir/initdb" -D "$PG_DATA" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 ||
        as_pg "$bindir/initdb" -D "$PG_DATA" -U postgres --auth=trust --encoding=UTF8 --no-locale >"$DIR/initdb.log" 2>&1 ||
        {
          cat "$DIR/initdb.log" >&2
          die "initdb failed"
        }
    fi
    touch "$PG_LOG"
    is_root && chown postgres: "$PG_LOG"
    # Throwaway test data: durability off for speed; enough connections for
    # several service processes with a pool of 10 each plus the test suites.
    as_pg "$bindir/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w -t 60 start \
      -o "-c listen_addresses=127.0.0.1 -p $PG_PORT_USED -k $DIR -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" >&2 ||
      {
        tail -n 30 "$PG_LOG" >&2 || true
        die "PostgreSQL did not start"
      }
    say "PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT_USED (data $PG_DATA)"
  fi
  local exists
  exists=$(psql -h 127.0.0.1 -p "$PG_PORT_USED" -U postgres -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = '$PG_DATABASE'")
  if [ "$exists" != "1" ]; then
    psql -h 127.0.0.1 -p "$PG_PORT_USED" -U postgres -d postgres -qc "CREATE DATABASE $PG_DATABASE" >&2
    say "database $PG_DATABASE created"
  fi

  # Redis: the service tests', then the cluster tests'
  if redis_up "${REDIS_PORT_USED:-}"; then
    say "Redis already running on 127.0.0.1:$REDIS_PORT_USED"
  else
    REDIS_PORT_USED=$(free_port_from "${REDIS_PORT:-56379}") || die "no free port for Redis"
    start_redis "$REDIS_PORT_USED"
    say "Redis $(redis-server --version | awk '{print $3}' | sed 's/^v=//') on 127.0.0.1:$REDIS_PORT_USED"
  fi
  if redis_up "${CLUSTER_REDIS_PORT_USED:-}"; then
    say "the cluster tests' Redis already running on 127.0.0.1:$CLUSTER_REDIS_PORT_USED"
  else
    CLUSTER_REDIS_PORT_USED=$(free_port_from "$((REDIS_PORT_USED + 1))") || die "no free port for the cluster tests' Redis"
    start_redis "$CLUSTER_REDIS_PORT_USED"
    say "the cluster tests' Redis on 127.0.0.1:$CLUSTER_REDIS_PORT_USED"
  fi

  printf 'PG_PORT_USED=%s\nREDIS_PORT_USED=%s\nCLUSTER_REDIS_PORT_USED=%s\n' \
    "$PG_PORT_USED" "$REDIS_PORT_USED" "$CLUSTER_REDIS_PORT_USED" >"$STATE"
  print_env
}

cmd_restart_redis() {
  load_state
  local port=${1:-${REDIS_PORT_USED:-}}
  [ -n "$port" ] && { [ "$port" = "${REDIS_PORT_USED:-}" ] || [ "$port" = "${CLUSTER_REDIS_PORT_USED:-}" ]; } ||
    die "no Redis on port ${port:-?} was started by this script"
  redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || true
  for _ in $(seq 1 50); do
    redis_up "$port" || break
    sleep 0.1
  done
  start_redis "$port"
  say "Redis restarted on 127.0.0.1:$port"
}

cmd_status() {
  load_state
  local rc=0
  if [ -n "${PG_PORT_USED:-}" ] && pg_running; then say "PostgreSQL: running on 127.0.0.1:$PG_PORT_USED"; else
    say "PostgreSQL: stopped"
    rc=1
  fi
  local port
  for port in "${REDIS_PORT_USED:-}" "${CLUSTER_REDIS_PORT_USED:-}"; do
    if redis_up "$port"; then say "Redis: running on 127.0.0.1:$port"; else
      say "Redis${port:+ on $port}: stopped"
      rc=1
    fi
  done
  return $rc
}

cmd_stop() {
  load_state
  if [ -f "$PG_DATA/postmaster.pid" ] && pg_bindir >/dev/null 2>&1; then
    as_pg "$(pg_bindir)/pg_ctl" -D "$PG_DATA" -m fast -w -t 30 stop >&2 || say "PostgreSQL stop failed"
  fi
  local port
  for port in "${REDIS_PORT_USED:-}" "${CLUSTER_REDIS_PORT_USED:-}"; do
    [ -z "$port" ] || redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || true
  done
  rm -rf "$DIR"
  say "stopped"
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  env) print_env ;;
  restart-redis) cmd_restart_redis "${2:-}" ;;
  status) cmd_status ;;
  stop) cmd_stop ;;
  *)
    echo "usage: $0 install|start|env|restart-redis [PORT]|status|stop" >&2
    exit 2
    ;;
esac
