#!/usr/bin/env bash
# Two checkouts of different commits on one machine, alternating CLI commands: each build trains its
# class cache once, on its first command, and never again (docs/cli.md, "Start-up"). The other
# checkout is a git worktree of COMMIT in a temporary folder, built there and removed at the end; both
# run on one cache folder of their own, without the daemon (every command a JVM, so every run would
# show a training), on the in-memory cluster. The JVM is a wrapper that logs each run's arguments.
#
#   checkouts.sh [--other COMMIT] [--commands N]
#
#   --other COMMIT  the other checkout's commit (default HEAD~1); its launcher must keep its caches per
#                   build (this script's commit or a later one)
#   --commands N    commands in all, alternating, this checkout's first (default 20)
#
# Prints each run's kind (training or using the cache) and exits 1 unless each checkout trained
# exactly once, on its first command. Not part of ./mvnw verify (LauncherIT checks the same with a
# second jar instead of a second checkout).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
other_commit=HEAD~1 commands=20
while (($# > 0)); do
  case $1 in
    --other) other_commit=$2; shift ;;
    --commands) commands=$2; shift ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "checkouts.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done

work=$(mktemp -d "${TMPDIR:-/tmp}/capstan-checkouts.XXXXXX")
other=$work/other
cleanup() {
  git -C "$root" worktree remove --force "$other" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
git -C "$root" worktree add --detach "$other" "$other_commit" >/dev/null 2>&1 ||
  { echo "checkouts.sh: cannot check out $other_commit" >&2; exit 2; }
grep -q 'cache_root/builds' "$other/capstan" ||
  { echo "checkouts.sh: $other_commit's launcher does not keep its caches per build; pick a later commit" >&2; exit 2; }
echo "checkouts.sh: building $other_commit in $other ..." >&2
(cd "$other" && ./mvnw -q -B -DskipTests -Dspotless.check.skip=true -pl capstan-cli -am package) >&2
"$root/capstan" --version >/dev/null # builds this checkout's jar when stale

log=$work/jvm.log
mkdir -p "$work/bin" "$work/home"
java=$(command -v "${CAPSTAN_JAVA:-${JAVA_HOME:+$JAVA_HOME/bin/}java}")
printf '#!/bin/sh\necho "$*" >>"%s"\nexec "%s" "$@"\n' "$log" "$java" >"$work/bin/java"
chmod +x "$work/bin/java"
export CAPSTAN_CACHE_DIR=$work/cache CAPSTAN_JAVA=$work/bin/java CAPSTAN_DAEMON=false HOME=$work/home
unset KUBECONFIG CAPSTAN_STATE

declare -A trained=()
status=0
for ((i = 0; i < commands; i++)); do
  if ((i % 2 == 0)); then checkout=this dir=$root; else checkout=other dir=$other; fi
  : >"$log"
  (cd "$work" && "$dir/capstan" --in-memory release list -n demo >/dev/null)
  # the command's JVM (a launcher may also start one that assembles the cache in the background)
  run=$(grep 'dev.capstan.cli.Main' "$log" || true)
  if grep -q 'ArchiveClassesAtExit\|DumpLoadedClassList\|AOTMode=record' <<<"$run"; then
    kind=training
    trained[$checkout]=$((${trained[$checkout]:-0} + 1))
    ((i < 2)) || { status=1; kind="training (after the first: not expected)"; }
  else
    kind="class cache used"
    grep -q 'SharedArchiveFile=\|AOTCache=' <<<"$run" || kind="no class cache"
  fi
  ! grep -q 'Xshare:dump\|AOTMode=create' "$log" || kind="$kind; the cache assembled beside it"
  printf 'command %2d, %-5s checkout: %s\n' "$((i + 1))" "$checkout" "$kind"
done
echo "trainings: this checkout ${trained[this]:-0}, the other ${trained[other]:-0}"
[[ ${trained[this]:-0} == 1 && ${trained[other]:-0} == 1 ]] || status=1
ls -1 "$CAPSTAN_CACHE_DIR/builds" | sed 's/^/build folder: /'
exit "$status"
