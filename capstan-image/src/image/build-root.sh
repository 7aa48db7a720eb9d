#!/usr/bin/env bash
# Builds the root file system that the image's base layers hold, beside the application layers Jib
# adds (capstan-image/pom.xml; docs/controller.md, "The image"):
#   /opt/java      a Java runtime linked with jlink from the JDK that runs the build, holding only
#                  the modules the command line needs
#   /lib*, /usr/lib*  the C libraries that runtime links, found with ldd and copied from this
#                  machine, so the runtime and its libraries come from one place and fit
#   /etc           passwd and group naming the user the image runs as (65532, nonroot),
#                  nsswitch.conf
# Nothing else: no shell, no package manager. A library that ldd cannot find fails the build.
#
#   build-root.sh JAVA_HOME OUT MODULES     MODULES: comma-separated, as jlink --add-modules takes
set -euo pipefail
java_home=$1 out=$2 modules=$3
here=$(cd "$(dirname "$0")" && pwd)

rm -rf "$out"
mkdir -p "$out/opt" "$out/tmp"
cp -R "$here/etc" "$out/etc"
"$java_home/bin/jlink" --add-modules "$modules" --output "$out/opt/java" \
  --strip-debug --no-man-pages --no-header-files

# Every ELF file of the runtime, and what the dynamic loader resolves for it: "libz.so.1 =>
# /lib/x86_64-linux-gnu/libz.so.1 (0x...)", the loader itself as "/lib64/ld-linux-x86-64.so.2
# (0x...)", a library the runtime holds itself under $out, and "=> not found" for a missing one.
mapfile -t elves < <(find "$out/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' -o -name jspawnhelper \))
resolved=$(for f in "${elves[@]}"; do ldd "$f" 2>/dev/null || true; done)
missing=$(awk '/=> not found/ {print $1}' <<<"$resolved" | sort -u)
# a runtime library found through $ORIGIN is in the runtime already, and it is not missing
missing=$(for m in $missing; do [ -n "$(find "$out/opt/java" -name "$m" -print -quit)" ] || echo "$m"; done)
if [ -n "$missing" ]; then
  echo "build-root.sh: ldd finds no $(echo $missing) for the jlink runtime in $out/opt/java" >&2
  exit 1
fi
libs=$(awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// && $2 ~ /^\(0x/ {print $1}' <<<"$resolved" |
  grep -v "^$out/" | sort -u)
for lib in $libs; do
  mkdir -p "$out$(dirname "$lib")"
  cp -L "$lib" "$out$lib"
done
echo "build-root.sh: $(du -sh "$out" | cut -f1) in $out: a runtime of [$modules] and $(wc -w <<<"$libs") C libraries"
