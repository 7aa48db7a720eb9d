#!/usr/bin/env bash
# A STAND-IN for `podman`, written next to a calls.log by UpdateBuildIT: no container is built.
#   podman build --platform P -f DOCKERFILE -t IMAGE CONTEXT
#       fails like podman when the Dockerfile is missing or has a `RUN false` line; otherwise
#       records an OCI image config (platform, Dockerfile digest) for IMAGE.
#   podman push IMAGE
#       uploads that config blob and an OCI image manifest (no layers) to IMAGE's registry over
#       the OCI distribution API with curl, plain HTTP (loopback registries only).
# Every call is appended to calls.log, one line of arguments per call.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
state=$here/state
mkdir -p "$state"
printf '%s\n' "$*" >>"$here/calls.log"

key() { printf '%s' "$1" | sha256sum | cut -c1-32; }
fail() { echo "Error: $*" >&2; exit 125; }

cmd=${1:-}
shift || true
case $cmd in
build)
  platform='' file='' tag='' context=''
  while [ $# -gt 0 ]; do
    case $1 in
    --platform) platform=$2; shift 2 ;;
    -f) file=$2; shift 2 ;;
    -t) tag=$2; shift 2 ;;
    *) context=$1; shift ;;
    esac
  done
  [ -d "$context" ] || fail "context directory $context does not exist"
  [ -f "$file" ] || fail "no Dockerfile at $file"
  if grep -q '^RUN false' "$file"; then
    echo 'Error: building at STEP "RUN false": exit status 1' >&2
    exit 1
  fi
  printf '{"architecture":"%s","os":"%s","config":{"Labels":{"dockerfile-sha256":"%s"}},"rootfs":{"type":"layers","diff_ids":[]}}' \
    "${platform#*/}" "${platform%%/*}" "$(sha256sum <"$file" | cut -d' ' -f1)" >"$state/$(key "$tag").json"
  ;;
push)
  image=$1
  config=$state/$(key "$image").json
  [ -f "$config" ] || fail "$image: image not known"
  host=${image%%/*}
  rest=${image#*/}
  name=${rest%:*}
  tag=${rest##*:}
  digest=sha256:$(sha256sum <"$config" | cut -d' ' -f1)
  size=$(wc -c <"$config" | tr -d ' ')
  headers=$(curl -sS -X POST -D - -o /dev/null -w '%{http_code}' "http://$host/v2/$name/blobs/uploads/") ||
    fail "push of $image: cannot reach $host"
  code=${headers##*$'\n'}
  [ "$code" = 202 ] || fail "push of $image: $host refused the upload (HTTP $code)"
  location=$(printf '%s' "$headers" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
  case $location in http*) ;; *) location=http://$host$location ;; esac
  case $location in *\?*) sep='&' ;; *) sep='?' ;; esac
  code=$(curl -sS -X PUT -H 'Content-Type: application/octet-stream' --data-binary "@$config" \
    -o /dev/null -w '%{http_code}' "$location${sep}digest=$digest") || fail "push of $image: upload failed"
  [ "$code" = 201 ] || fail "push of $image: blob upload answered HTTP $code"
  manifest=$(printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"%s","size":%s},"layers":[]}' "$digest" "$size")
  code=$(printf '%s' "$manifest" | curl -sS -X PUT -H 'Content-Type: application/vnd.oci.image.manifest.v1+json' \
    --data-binary @- -o /dev/null -w '%{http_code}' "http://$host/v2/$name/manifests/$tag") || fail "push of $image: manifest upload failed"
  [ "$code" = 201 ] || fail "push of $image: manifest upload answered HTTP $code"
  ;;
*)
  fail "unsupported command: $cmd"
  ;;
esac
