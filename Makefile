# rpconnect-doris. Needs only Go and make: every tool a target uses is built
# from this module.
GO       ?= go
BIN      := bin
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
DATE     := $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS  := -s -w -X main.version=$(VERSION) -X main.dateBuilt=$(DATE)
TEST_TIMEOUT ?= 25m

.PHONY: bench-compare all build demo docs test test-short bench crash fuzz vet clean

all: build

build: $(BIN)/rpconnect-doris $(BIN)/dorissim

$(BIN)/rpconnect-doris: FORCE
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $@ ./cmd/rpconnect-doris

$(BIN)/dorissim: FORCE
	$(GO) build -trimpath -o $@ ./cmd/dorissim

FORCE:

# The main job: the simulator with a live demo.orders workload, and
# rpconnect-doris printing its snapshot and then every change.
demo: build
	./scripts/demo.sh

# The components' reference pages (docs/reference) from their config specs;
# `make test` fails while a committed page differs from its spec.
docs:
	$(GO) run ./cmd/gendocs

# Unit tests, the simulator acceptance suite, the end-to-end suite and the
# short crash and fault suites, all with the race detector.
test: build
	$(GO) vet ./...
	RPCONNECT_DORIS_BIN=$(abspath $(BIN)/rpconnect-doris) DORISSIM_BIN=$(abspath $(BIN)/dorissim) \
		$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./...

# The long crash suite: at least 10 SIGKILLs across snapshot and binlog.
crash: build
	RPCONNECT_DORIS_BIN=$(abspath $(BIN)/rpconnect-doris) DORISSIM_BIN=$(abspath $(BIN)/dorissim) \
		CRASH_LONG=1 $(GO) test -count=1 -timeout 30m -v -run TestCrash ./tests/crash/

# The benchmark suite against dorissim; prints one table.
bench: build
	RPCONNECT_DORIS_BIN=$(abspath $(BIN)/rpconnect-doris) DORISSIM_BIN=$(abspath $(BIN)/dorissim) \
		BENCH=1 $(GO) test -count=1 -timeout 120m -v -run 'TestBench$$|TestManyIdleTablesBench' ./tests/bench/
	$(GO) test -run '^$$' -bench . -benchmem ./input/rowjson/ ./input/ ./input/changes/ ./input/delivery/ ./input/checkpoint/ ./output/
	@# doris_load creating 1,000 targets at start-up: time and FE requests per table.
	$(GO) test -count=1 -v -run 'TestCreateTablesThousandTargets$$' ./tests/e2e/ > $(BIN)/bench-create-tables.log
	@grep -E 'created [0-9]+ targets' $(BIN)/bench-create-tables.log

# Client CPU of rows a and g for the binary of commit BASE against this
# tree's, alternating against one simulator (BENCH_ROUNDS, default 5): the
# way to check a CPU budget on a shared machine, where the absolute figures
# drift by tens of percent between hours.
BASE ?= HEAD~1
bench-compare: build
	@d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && \
	git archive --format=tar $(BASE) | tar -x -C "$$d" && \
	(cd "$$d" && $(GO) build -trimpath -ldflags '-s -w' -o bin/rpconnect-doris ./cmd/rpconnect-doris) && \
	RPCONNECT_DORIS_BIN=$(abspath $(BIN)/rpconnect-doris) DORISSIM_BIN=$(abspath $(BIN)/dorissim) \
		BENCH_BASE_BIN="$$d/bin/rpconnect-doris" BENCH=1 \
		$(GO) test -count=1 -timeout 60m -v -run TestCompareCPU ./tests/bench/

# Runs each fuzz target for FUZZTIME (the seed corpora also run in `make test`).
FUZZTIME ?= 20s
fuzz:
	@for pkg in ./doris ./input/flight ./input/rowjson ./input/checkpoint ./output; do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

clean:
	rm -rf $(BIN)
