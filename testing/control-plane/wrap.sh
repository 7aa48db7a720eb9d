#!/usr/bin/env bash
# Writes the wrapper Go module (go.mod with `tool` lines, and its go.sum) for one version of a
# control-plane component, from the Go module proxy. For maintainers adding a version to the
# table in lib.sh; build.sh only ever reads these modules (-mod=readonly).
#
#   wrap.sh kubernetes v1.37.2   writes go/kubernetes/1.37/ (the staging `replace` lines are
#                                generated from k8s.io/kubernetes's own go.mod at that tag)
#   wrap.sh etcd v3.7.3          writes go/etcd/3.7/
#   wrap.sh kwok v0.8.0          writes go/kwok/0.8/
#
# The folder is named after the minor version: one patch release per minor is kept, the one
# lib.sh names. An existing folder is replaced.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ $# == 2 ]] || cp_die "usage: wrap.sh kubernetes|etcd|kwok VERSION"
component=$1 version=$2
[[ $version =~ ^v([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || cp_die "VERSION must look like v1.37.2, got '$version'"
minor=${BASH_REMATCH[1]}.${BASH_REMATCH[2]}
if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then
  PATH=/usr/local/go/bin:$PATH
fi

case $component in
  kubernetes)
    module=k8s.io/kubernetes
    tools=(k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
      k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl) ;;
  etcd) module=go.etcd.io/etcd/server/v3 tools=(go.etcd.io/etcd/server/v3) ;;
  kwok) module=sigs.k8s.io/kwok tools=(sigs.k8s.io/kwok/cmd/kwok) ;;
  *) cp_die "unknown component '$component' (kubernetes, etcd or kwok)" ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
go mod init "local.invalid/capstan-$component-$minor-testbins" 2>/dev/null
if [[ $component == kubernetes ]]; then
  # k8s.io/kubernetes points its staging modules at ./staging/src/...; a module outside its tree
  # needs each at the published v0.MINOR.PATCH tag instead, or the build fails with
  # "unknown revision v0.0.0".
  gomod=$(GOFLAGS=-mod=mod go mod download -json "$module@$version" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')
  [[ -f $gomod ]] || cp_die "cannot download the go.mod of $module@$version"
  staging=v0.${version#v1.}
  count=0
  while read -r name; do
    go mod edit -replace "$name=$name@$staging"
    count=$((count + 1))
  done < <(sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/src/k8s\.io/[a-z0-9-]*$#\1#p' "$gomod")
  ((count > 0)) || cp_die "no staging replace lines found in $gomod"
  cp_log "$count staging modules replaced by their $staging tags"
fi
# Always the explicit @version: a bare package path would mean @upgrade.
go get -tool "${tools[@]/%/@$version}"

out=$CP_DIR/go/$component/$minor
rm -rf "$out"
mkdir -p "$out"
cp go.mod go.sum "$out/"
cp_log "wrote $out for $module $version; add it to the table in lib.sh"
