#!/bin/sh
# The one command of a GPU bundle (scripts/gpu-bundle.mjs copies this file to DIR/run): on a bare
# Linux machine with a C++ compiler, cmake and, for CUDA, nvcc, but no Node.js and no network, it
# checks the archives, extracts the pinned Node.js and llama.cpp source, builds llama.cpp (CUDA
# where nvcc and an NVIDIA device exist, else Vulkan where its toolchain exists) and the addon,
# and runs the GPU check. It prints ONE JSON line on stdout, `"ok": true|false`, and writes it to
# DIR/gpu-check.json (or $RAMFORGE_GPU_CHECK_OUT); progress goes to stderr. Builds go into
# $RAMFORGE_CACHE when set (a machine that built the same key before reuses it), else into DIR.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
RESULT=${RAMFORGE_GPU_CHECK_OUT:-$HERE/gpu-check.json}
APP=$HERE/app
rm -f "$RESULT"

say() { printf '[gpu-bundle] %s\n' "$*" >&2; }
# A failure before the check could speak: still one JSON line, in the check's schema.
fail() {
  msg=$(printf '%s' "$*" | tr '\n\t"\\' '    ' | cut -c1-600)
  line=$(printf '{"schema":"ramforge-gpu-check/1","ok":false,"error":"%s","stage":"bundle"}' "$msg")
  printf '%s\n' "$line" >"$RESULT"
  printf '%s\n' "$line"
  exit 1
}

for tool in tar xz sha256sum cmake c++ cc; do
  command -v "$tool" >/dev/null 2>&1 || fail "missing tool: $tool"
done
cd "$HERE" || fail "cannot enter $HERE"
sha256sum -c --quiet SHA256SUMS >&2 || fail "an archive does not match SHA256SUMS (a damaged copy)"

if [ -z "${RAMFORGE_CACHE:-}" ]; then RAMFORGE_CACHE=$HERE/cache; fi
export RAMFORGE_CACHE
mkdir -p "$RAMFORGE_CACHE/gpu-bundle" || fail "cannot write $RAMFORGE_CACHE"

# Node.js, once per version and cache.
NODE_VERSION=$(cat node-version)
NODE_DIR=$RAMFORGE_CACHE/gpu-bundle/node-v$NODE_VERSION
if [ ! -x "$NODE_DIR/bin/node" ]; then
  say "extracting Node.js $NODE_VERSION"
  rm -rf "$NODE_DIR.tmp" && mkdir -p "$NODE_DIR.tmp" || fail "cannot create $NODE_DIR.tmp"
  tar -xJf node.tar.xz -C "$NODE_DIR.tmp" || fail "cannot extract node.tar.xz"
  rm -rf "$NODE_DIR" && mv "$NODE_DIR.tmp" "$NODE_DIR" || fail "cannot move Node.js into place"
fi
NODE=$NODE_DIR/bin/node
[ "$("$NODE" --version 2>/dev/null)" = "v$NODE_VERSION" ] || fail "the extracted Node.js does not run as v$NODE_VERSION"
# The addon's CMakeLists asks `node` for node-addon-api's headers.
PATH=$NODE_DIR/bin:$PATH
export PATH

# llama.cpp: the bundle's source (scripts/llama-cpp.mjs checks its tag and patch set), built with
# the flags and key any checkout of this commit uses.
export RAMFORGE_LLAMA_SOURCE="$HERE/llama.cpp.tar.xz"
say "building llama.cpp (cached per key in $RAMFORGE_CACHE)"
"$NODE" "$APP/scripts/llama-cpp.mjs" build llama llama-bench llama-fit-params >&2 || fail "the llama.cpp build failed (see stderr)"
PATHS=$("$NODE" "$APP/scripts/llama-cpp.mjs" paths) || fail "llama-cpp.mjs paths failed"
LLAMA_SRC=$("$NODE" -p 'JSON.parse(process.argv[1]).source' "$PATHS")
LLAMA_BUILD=$("$NODE" -p 'JSON.parse(process.argv[1]).build' "$PATHS")

# The addon, with cmake alone (cmake-js would need npm packages): its key is its sources and the
# llama.cpp build it links.
KEY=$( (cd "$APP/native" && find . -path ./build -prune -o -type f -print | LC_ALL=C sort | xargs sha256sum; echo "$LLAMA_BUILD") | sha256sum | cut -c1-12)
ADDON_DIR=$RAMFORGE_CACHE/gpu-bundle/addon-$KEY
if [ ! -f "$ADDON_DIR/Release/ramforge.node" ]; then
  say "building the addon in $ADDON_DIR"
  rm -rf "$ADDON_DIR"
  GEN=
  if command -v ninja >/dev/null 2>&1; then GEN="-G Ninja"; fi
  # shellcheck disable=SC2086
  cmake -S "$APP/native" -B "$ADDON_DIR" $GEN -DCMAKE_BUILD_TYPE=Release \
    "-DLLAMA_SRC_DIR=$LLAMA_SRC" "-DLLAMA_BUILD_DIR=$LLAMA_BUILD" \
    "-DCMAKE_JS_INC=$APP/node_modules/node-api-headers/include" \
    "-DCMAKE_LIBRARY_OUTPUT_DIRECTORY=$ADDON_DIR/Release" >&2 || fail "configuring the addon failed"
  cmake --build "$ADDON_DIR" --target ramforge_addon --parallel "$(nproc 2>/dev/null || echo 2)" >&2 || fail "building the addon failed"
fi
mkdir -p "$APP/native/build/Release" && cp "$ADDON_DIR/Release/ramforge.node" "$APP/native/build/Release/ramforge.node" || fail "cannot place the addon"

say "running the check"
"$NODE" "$APP/scripts/gpu-check.mjs" --prebuilt --out "$RESULT"
rc=$?
[ -s "$RESULT" ] || fail "the check ended with status $rc and no result"
exit $rc
