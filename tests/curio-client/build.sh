#!/usr/bin/env bash
# tests/curio-client/build.sh SOURCE_DIR OUT_DIR: builds OUT_DIR/curio-client from this Go module and
# stubs generated from SOURCE_DIR/apps/proto/cuzk/v1/proving.proto (protoc + protoc-gen-go +
# protoc-gen-go-grpc). Nothing is written into the clone: the module is copied to OUT_DIR/src; Go's
# module and build caches and the two plugins live under ~/.cache/cuzk/go (CUZK_CACHE). Exit 77
# (skip) without go or protoc.
set -euo pipefail
SRC=$(cd "${1:?usage: build.sh SOURCE_DIR OUT_DIR}" && pwd)
OUT=${2:?usage: build.sh SOURCE_DIR OUT_DIR}
for tool in go protoc; do
  command -v "$tool" >/dev/null || { echo "curio-client: SKIPPED: $tool not found"; exit 77; }
done
CACHE=${CUZK_CACHE:-$HOME/.cache/cuzk}/go
export GOMODCACHE=$CACHE/mod GOCACHE=$CACHE/build GOBIN=$CACHE/bin GOFLAGS=-mod=readonly GOTOOLCHAIN=local
PROTOC_GEN_GO=v1.36.12       # google.golang.org/protobuf, as go.mod
PROTOC_GEN_GO_GRPC=v1.6.1    # google.golang.org/grpc/cmd/protoc-gen-go-grpc
mkdir -p "$GOBIN"
stamp=$GOBIN/.versions
if [[ $(cat "$stamp" 2>/dev/null) != "$PROTOC_GEN_GO $PROTOC_GEN_GO_GRPC" ]]; then
  echo "curio-client: installing protoc-gen-go $PROTOC_GEN_GO and protoc-gen-go-grpc $PROTOC_GEN_GO_GRPC into $GOBIN"
  if ! GOFLAGS= go install "google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOC_GEN_GO" ||
     ! GOFLAGS= go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$PROTOC_GEN_GO_GRPC"; then
    echo "curio-client: SKIPPED: cannot install the protoc plugins (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"
    exit 77
  fi
  echo "$PROTOC_GEN_GO $PROTOC_GEN_GO_GRPC" >"$stamp"
fi
rm -rf "$OUT/src"
mkdir -p "$OUT/src/cuzkpb"
cp "$SRC"/tests/curio-client/{go.mod,go.sum,*.go} "$OUT/src/"
pkg=cuzk.local/curioclient/cuzkpb
PATH=$GOBIN:$PATH protoc -I "$SRC/apps/proto" \
  --go_out="$OUT/src/cuzkpb" --go_opt=paths=source_relative --go_opt="Mcuzk/v1/proving.proto=$pkg" \
  --go-grpc_out="$OUT/src/cuzkpb" --go-grpc_opt=paths=source_relative --go-grpc_opt="Mcuzk/v1/proving.proto=$pkg" \
  cuzk/v1/proving.proto
mv "$OUT"/src/cuzkpb/cuzk/v1/*.go "$OUT/src/cuzkpb/"
if ! (cd "$OUT/src" && go mod download); then
  echo "curio-client: SKIPPED: cannot download the Go modules (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"
  exit 77
fi
(cd "$OUT/src" && go vet ./... && go test ./... && go build -o "$OUT/curio-client" .)
echo "curio-client: built $OUT/curio-client"
