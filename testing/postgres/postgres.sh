#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback for the tests of release-jdbc (see README.md here).
#
#   postgres.sh start DIR PORT WATCH_PID   initdb a cluster in DIR/data, start it on 127.0.0.1:PORT
#                                          (no Unix socket), create database "capstan" owned by user
#                                          "capstan" (trust auth, loopback only), print the server pid;
#                                          a watchdog stops the server when WATCH_PID (the test JVM) ends
#   postgres.sh stop DIR                   stop the server of DIR by its pid (fast shutdown), then
#                                          delete DIR, keeping the server log as DIR.log
#   postgres.sh --check                    exit 0 when the server binaries are installed
#
# The binaries are Debian's (/usr/lib/postgresql/<major>/bin, the newest major); .ci/run installs the
# postgresql package when they are missing. initdb and postgres refuse to run as root: as root, the
# cluster is owned by and run as the "postgres" system user (runuser), which the package creates.
set -euo pipefail

die() { echo "postgres.sh: $*" >&2; exit 1; }

bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  done
  return 1
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

cmd="${1:-}"
case "$cmd" in
  --check)
    bindir >/dev/null
    ;;
  start)
    [ $# -eq 4 ] || die "usage: postgres.sh start DIR PORT WATCH_PID"
    dir="$2"; port="$3"; watch="$4"
    [[ "$port" =~ ^[0-9]+$ ]] || die "PORT must be a number: '$port'"
    [[ "$watch" =~ ^[0-9]+$ ]] || die "WATCH_PID must be a number: '$watch'"
    bin="$(bindir)" || die "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin; install them: apt-get install -y postgresql"
    if [ "$(id -u)" = 0 ]; then
      id postgres >/dev/null 2>&1 || die "running as root needs the 'postgres' user (created by the postgresql package)"
    fi
    rm -rf "$dir"
    mkdir -p "$dir/data"
    chmod 700 "$dir/data"
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir/data"; fi
    data="$(cd "$dir/data" && pwd)"
    as_owner "$bin/initdb" -D "$data" -U capstan -A trust -E UTF8 --no-locale -N >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
    as_owner "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
      -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=40" \
      start >"$dir/pg_ctl.log" 2>&1 \
      || { cat "$dir/pg_ctl.log" "$data/server.log" >&2 || true; die "the server did not start on 127.0.0.1:$port"; }
    pid="$(head -n 1 "$data/postmaster.pid")"
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U capstan capstan \
      || { kill -INT "$pid"; die "createdb failed"; }
    # Watchdog: stop the server by pid when the test JVM goes away, even after kill -9.
    nohup setsid bash -c "while kill -0 $watch 2>/dev/null && kill -0 $pid 2>/dev/null; do sleep 1; done; kill -INT $pid 2>/dev/null" \
      >/dev/null 2>&1 </dev/null &
    echo "$pid"
    ;;
  stop)
    [ $# -eq 2 ] || die "usage: postgres.sh stop DIR"
    dir="$2"
    pidfile="$dir/data/postmaster.pid"
    if [ -f "$pidfile" ]; then
      pid="$(head -n 1 "$pidfile")"
      if kill -INT "$pid" 2>/dev/null; then
        for _ in $(seq 1 100); do
          kill -0 "$pid" 2>/dev/null || break
          sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
      fi
    fi
    # A cluster is ~180 MB: keep only its server log, as DIR.log
    if [ -d "$dir/data" ]; then
      cp "$dir/data/server.log" "$dir.log" 2>/dev/null || true
      rm -rf "$dir"
    fi
    ;;
  *)
    die "usage: postgres.sh start DIR PORT WATCH_PID | stop DIR | --check"
    ;;
esac
