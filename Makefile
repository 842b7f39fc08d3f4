# ctxls build, test and benchmark targets.
# SQLite's FTS5 is compiled into github.com/mattn/go-sqlite3 only with the
# sqlite_fts5 build tag, so every go command here passes it.

GO        ?= go
TAGS      := sqlite_fts5
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
STATICCHECK_VERSION := v0.8.2
BENCH_ROOT ?= $(shell $(GO) env GOROOT 2>/dev/null)/src

.PHONY: all build install uninstall dist run test test-go test-fuzz test-race e2e-deps lint bench bench-index bench-query bench-hooks bench-memory bench-lsp bench-scale clean \
	ext ext-deps ext-test ext-protocol-test ext-package ext-e2e-deps ext-e2e test-ext

all: build

# bin/ctxls is the thin client people and hooks run (decision 0086), linked
# statically: loading libc was 5-6 ms of each call on the 2-core VM. It runs
# bin/ctxls-core, the full program, for all but the calls a daemon answers.
build:
	$(GO) build -tags $(TAGS) -trimpath -ldflags '$(LDFLAGS)' -o bin/ctxls-core ./cmd/ctxls-core
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o bin/ctxls ./cmd/ctxls

# install puts both programs in one directory, as go install would: $(GOBIN),
# else $(GOPATH)/bin, or $(PREFIX)/bin when PREFIX is given (DESTDIR for
# packagers). They go together: ctxls runs the ctxls-core beside it.
# Under sudo, go is often not on PATH (Debian's secure_path leaves out
# /usr/local/go/bin): install then copies what `make build` left in bin/,
# and needs PREFIX, as it cannot ask go for GOPATH.
PREFIX ?=
GOBIN  ?= $(shell $(GO) env GOBIN 2>/dev/null)
BINDIR ?= $(if $(PREFIX),$(PREFIX)/bin,$(if $(GOBIN),$(GOBIN),$(shell $(GO) env GOPATH 2>/dev/null)/bin))
HAVE_GO := $(shell command -v $(GO) 2>/dev/null)
install: $(if $(HAVE_GO),build)
ifeq ($(HAVE_GO),)
	@if [ -z '$(PREFIX)' ] && [ '$(origin GOBIN)' = file ]; then echo "make install: $(GO) is not on PATH (under sudo?); say where: make install PREFIX=/usr/local" >&2; exit 1; fi
	@if [ ! -x bin/ctxls-core ] || [ ! -x bin/ctxls ]; then echo "make install: $(GO) is not on PATH (under sudo?) and bin/ has no build: run make build first, as yourself" >&2; exit 1; fi
endif
	install -d '$(DESTDIR)$(BINDIR)'
	install -m 0755 bin/ctxls-core bin/ctxls '$(DESTDIR)$(BINDIR)/'
	@case ":$$PATH:" in *":$(BINDIR):"*) ;; *) echo "note: $(BINDIR) is not on PATH; add it (export PATH=\"$(BINDIR):\$$PATH\") so that ctxls and its hooks find it" >&2;; esac

uninstall:
ifeq ($(HAVE_GO),)
	@if [ -z '$(PREFIX)' ] && [ '$(origin GOBIN)' = file ]; then echo "make uninstall: $(GO) is not on PATH (under sudo?); say where: make uninstall PREFIX=/usr/local" >&2; exit 1; fi
endif
	rm -f '$(DESTDIR)$(BINDIR)/ctxls' '$(DESTDIR)$(BINDIR)/ctxls-core'

# dist builds the release archives into dist/release/ (.goreleaser.yaml):
# per platform both programs, the README and, for this machine's platform,
# the VS Code extension; checksums.txt beside them. GoReleaser is pinned
# here and run with go run, so it needs no install and, once its module is
# in the Go module cache, no network. Cross-building ctxls-core needs cgo
# cross-compilers: linux/arm64 takes Debian's gcc-aarch64-linux-gnu
# (decision 0108 says which platforms and why). The .vsix also goes beside
# the archives, as checksums.txt lists it: `sha256sum -c checksums.txt` in
# dist/release/ checks every file it names.
GORELEASER_VERSION := v2.15.1
dist: ext-package
	$(GO) run github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION) release --snapshot --clean --skip=publish
	cp ctxls-*.vsix dist/release/
	cd dist/release && sha256sum --quiet -c checksums.txt

# run is the main job on this repository: build, index it, and show the
# auto-context for a question about it.
QUESTION ?= how does the indexer resolve references to definitions
run: build
	bin/ctxls index --root .
	bin/ctxls context --root . "$(QUESTION)"

# The real Claude Code CLI (from npm) and the fake Messages API in
# ../shared/tools drive the hook end-to-end test; without npm or shared/ it is
# skipped.
CLAUDE_CODE_VERSION := 2.1.330
CLAUDE_DIR := $(CURDIR)/.cache/claude-code
CLAUDE_BIN := $(CLAUDE_DIR)/node_modules/.bin/claude
FAKE_API   ?= $(abspath $(CURDIR)/../shared/tools/claude-code-fake-api.py)

# test runs every test suite; it is the README's test command and what CI runs.
# ext-deps before test-go: the TypeScript call-edge oracle test reads the
# compiler from the repository's node_modules.
test: build e2e-deps ext-deps test-go test-fuzz test-race test-ext

# test-go prints each package's result and the output of failing tests
# (scripts/testreport reads go test -json), then every skipped test with
# its reason, also kept in $(SKIPPED) for .ci/run to repeat at its end.
# With CI=true a test skipped for a missing prerequisite (a tool, a
# fixture) fails the run: a CI machine must have them all.
SKIPPED := .cache/skipped-tests.txt
test-go:
	@mkdir -p .cache
	CTXLS_BIN=$(CURDIR)/bin/ctxls \
	CTXLS_CLAUDE_BIN=$(if $(wildcard $(CLAUDE_BIN)),$(CLAUDE_BIN)) \
	CTXLS_FAKE_API=$(if $(wildcard $(FAKE_API)),$(FAKE_API)) \
	$(GO) test -json -tags $(TAGS) -count=1 ./... | $(GO) run ./scripts/testreport -skips $(SKIPPED) $(if $(filter true 1,$(CI)),-strict)

# test-fuzz runs every fuzz target of the repository (each `func FuzzX` in
# a _test.go file, found by grep so new ones are picked up) for FUZZTIME;
# their seed corpora already run in test-go. docs/RELIABILITY.md lists them.
# A count of inputs, not a duration: with a duration, a worker still
# running its baseline when time is up makes the run fail with "context
# deadline exceeded" on a busy machine.
FUZZTIME ?= 1000x
test-fuzz:
	@set -e; grep -r -o --include='*_test.go' --exclude-dir=node_modules --exclude-dir=.cache '^func Fuzz[A-Za-z0-9_]*' . | sort | \
	while IFS=: read -r file fn; do \
		name=$${fn#func }; pkg=$$(dirname "$$file"); \
		echo "$(GO) test -run '^$$' -fuzz '^$$name\$$' -fuzztime $(FUZZTIME) $$pkg"; \
		$(GO) test -tags $(TAGS) -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) "$$pkg"; \
	done

# test-race runs the packages with goroutines of their own under the race
# detector. ./mcpserver is left out until TestFilterLimits passes under
# -race (it times out waiting for its last answer; it passes without).
RACE_PKGS := ./hooks ./hookd ./collect ./store ./index ./server
test-race: build
	CTXLS_BIN=$(CURDIR)/bin/ctxls \
	$(GO) test -race -tags $(TAGS) -count=1 $(RACE_PKGS)

e2e-deps:
	@if [ ! -x $(CLAUDE_BIN) ] && command -v npm >/dev/null; then \
		mkdir -p $(CLAUDE_DIR) && cd $(CLAUDE_DIR) && echo '{"private":true}' > package.json && \
		npm install --no-audit --no-fund --loglevel=error @anthropic-ai/claude-code@$(CLAUDE_CODE_VERSION) >/dev/null \
		|| echo "e2e-deps: npm could not install the Claude Code CLI; its end-to-end test will be skipped" >&2; \
	fi

lint:
	$(GO) vet -tags $(TAGS) ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) -tags $(TAGS) ./...

bench: bench-index bench-query bench-hooks bench-memory bench-lsp

# bench-index measures index build, re-index after an analyzer change, no-op
# and one-file re-index on GOROOT/src against universal-ctags in the same run.
bench-index: build
	BENCH_ROOT=$(BENCH_ROOT) ./scripts/bench-index.sh

# bench-scale: the Linux kernel (Debian's linux-source-6.1) against
# universal-ctags, cold and no-change index, then the kernel prompt set
# (issue 25). Not part of bench: it unpacks 1.5 GB and indexes it.
bench-scale: build
	./scripts/bench-scale.sh

bench-query: build
	BENCH_ROOT=$(BENCH_ROOT) ./scripts/bench-query.sh

# bench-hooks: whole hook calls as Claude Code makes them, then the daemon's
# share alone (hooks.Run on an open store, BenchmarkDaemonCalls, and with an
# Edit before each prompt, BenchmarkDaemonEditCycle) on the same
# tree, which the script leaves indexed in /tmp/ctxls-bench-goroot.
bench-hooks: build
	BENCH_ROOT=$(BENCH_ROOT) ./scripts/bench-hooks.sh
	CTXLS_BENCH_ROOT=/tmp/ctxls-bench-goroot/src CTXLS_BENCH_HOME=/tmp/ctxls-bench-goroot/home $(GO) test -tags $(TAGS) -run '^$$' -bench 'BenchmarkDaemon(Calls|EditCycle)' -benchtime 3x ./hooks/

# bench-mcp measures context_query through `ctxls mcp` (stdio and in process)
# against the whole-process `ctxls context` in the same run.
.PHONY: bench-mcp
bench: bench-mcp
bench-mcp: build
	BENCH_ROOT=$(BENCH_ROOT) ./scripts/bench-mcp.sh

# bench-memory: search (p50/p95) and rebuild over 10,000 generated memories,
# with ripgrep over the same files as the peer.
bench-memory:
	$(GO) test -tags $(TAGS) -run '^$$' -bench 'BenchmarkMemorySearch/(^search$$|^hook)' -benchtime 300x ./memory/
	$(GO) test -tags $(TAGS) -run '^$$' -bench 'BenchmarkMemorySearch/(^fullsync|^ripgrep)' -benchtime 20x ./memory/
	$(GO) test -tags $(TAGS) -run '^$$' -bench 'BenchmarkMemoryRebuild' -benchtime 3x -count 3 ./memory/

# bench-lsp measures ctxls serve on a copy of GOROOT/src through its stdio:
# indexing, RSS, idle CPU, didChange → auto-context file (debounce 0), hover.
bench-lsp: build
	$(GO) run -tags $(TAGS) ./scripts/benchlsp -bin $(CURDIR)/bin/ctxls -src $(BENCH_ROOT)

# The VS Code extension (root package.json, sources in extension/): npm ci from
# the committed lock file, then type check, lint and bundle.
NPM ?= npm
EXT_NPM := npm_config_loglevel=error npm_config_fund=false npm_config_audit=false $(NPM)

node_modules/.package-lock.json: package-lock.json
	$(EXT_NPM) ci

ext-deps: node_modules/.package-lock.json

ext: ext-deps
	$(EXT_NPM) run typecheck
	$(EXT_NPM) run lint
	$(EXT_NPM) run build

# ext-test: the extension's own logic under Node, with a stub of the vscode API.
ext-test: ext-deps
	$(EXT_NPM) run test:unit

# ext-protocol-test: a Node LSP client (vscode-languageserver-protocol) against bin/ctxls.
ext-protocol-test: build ext-deps
	CTXLS_BIN=$(CURDIR)/bin/ctxls $(EXT_NPM) run test:protocol

# ext-package: a .vsix for this platform with bin/ctxls inside.
ext-package: build ext
	$(EXT_NPM) run package

# ext-e2e: the packaged extension in a real VS Code (code-server, installed under
# .cache/ by scripts/ext-e2e-deps.sh) driven in Debian's chromium.
CTXLS_EXT_CACHE ?= $(CURDIR)/.cache/ext-e2e
export CTXLS_EXT_CACHE

ext-e2e-deps:
	./scripts/ext-e2e-deps.sh

ext-e2e: ext-package ext-e2e-deps
	CTXLS_BIN=$(CURDIR)/bin/ctxls $(EXT_NPM) run test:e2e

test-ext: ext ext-test ext-protocol-test ext-e2e

clean:
	rm -rf bin dist out
