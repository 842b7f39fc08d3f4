# ctxls build, test and benchmark targets.
# SQLite's FTS5 is compiled into github.com/mattn/go-sqlite3 only with the
# sqlite_fts5 build tag, so every go command here passes it.

GO        ?= go
TAGS      := sqlite_fts5
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
STATICCHECK_VERSION := v0.8.2
BENCH_ROOT ?= $(shell $(GO) env GOROOT)/src

.PHONY: all build run test test-go lint bench bench-index bench-query bench-hooks clean

all: build

build:
	$(GO) build -tags $(TAGS) -trimpath -ldflags '$(LDFLAGS)' -o bin/ctxls ./cmd/ctxls

# run is the main job on this repository: build, index it, and show the
# auto-context for a question about it.
QUESTION ?= how does the indexer resolve references to definitions
run: build
	bin/ctxls index --root .
	bin/ctxls context --root . "$(QUESTION)"

# test runs every test suite; it is the README's test command and what CI runs.
test: build test-go

test-go:
	CTXLS_BIN=$(CURDIR)/bin/ctxls $(GO) test -tags $(TAGS) -count=1 ./...

lint:
	$(GO) vet -tags $(TAGS) ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) -tags $(TAGS) ./...

bench: bench-index bench-query bench-hooks

# bench-index measures index build, no-op and one-file re-index on GOROOT/src
# against universal-ctags in the same run.
bench-index: build
	BENCH_ROOT=$(BENCH_ROOT) ./scripts/bench-index.sh

bench-query: build
	BENCH_ROOT=$(BENCH_ROOT) ./scripts/bench-query.sh

bench-hooks: build
	BENCH_ROOT=$(BENCH_ROOT) ./scripts/bench-hooks.sh

clean:
	rm -rf bin
