# flamekit: two commands for a fresh machine with Go:
#   make demo   build the tools and draw flame graphs of a bundled real capture
#   make test   gofmt, go vet, staticcheck, the pages' JavaScript syntax
#               (node --check), go test -race (every fuzz target's committed
#               seed corpus included, no random fuzzing), shellcheck
# and, before resolving parser work:
#   make fuzz   the fuzzing campaign: every fuzz target in turn, FUZZTIME each
#               (default 1m); inputs that fail are written under testdata/fuzz
#               by go test: commit them as seeds

GO          ?= go
BIN         ?= bin
OUT         ?= out
FUZZTIME    ?= 1m
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
CAPTURE     ?= testdata/perf/burst.txt.gz
SHELL       := /bin/bash
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS     := -X flamekit/internal/cli.version=$(VERSION)
# The tools need no C: built without cgo they are static, and each run
# starts 4-5 ms sooner (no dynamic loader, no libc start-up; 25 ms instead
# of 29.5 for stackcollapse --version here). Tests keep cgo, which -race needs.
BUILDENV    ?= CGO_ENABLED=0

.PHONY: all build install demo test fmt vet staticcheck jscheck unit fuzz shellcheck bench clean

all: build

build:
	@mkdir -p $(BIN)
	$(BUILDENV) $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/ ./cmd/...

install:
	$(BUILDENV) $(GO) install -ldflags "$(LDFLAGS)" ./cmd/...

# The pipelines of the README on a bundled real capture: 30 s of a 2-vCPU
# machine (perf record -a -g -F 97), mostly idle, with a 2 s burst of a
# process called flamekit_burst about 14 s in.
demo: build
	@mkdir -p $(OUT)
	@set -euo pipefail; export PATH="$(CURDIR)/$(BIN):$$PATH"; \
	stackcollapse $(CAPTURE) > $(OUT)/burst.timed.folded; \
	flamegraph --title "30 s, whole machine" $(OUT)/burst.timed.folded > $(OUT)/whole.svg; \
	timeslice --at 14.8s±1 $(OUT)/burst.timed.folded | flamegraph --title "The burst: 14.8 s ± 1 s" > $(OUT)/burst.svg; \
	timeslice --at 5s±2.5 --no-idle $(OUT)/burst.timed.folded | flamegraph --title "Quiet: 5 s ± 2.5 s, idle dropped" > $(OUT)/quiet.svg; \
	timeslice --heatmap --no-idle $(OUT)/burst.timed.folded > $(OUT)/heatmap.svg; \
	timeslice $(OUT)/burst.timed.folded > $(OUT)/burst.folded; \
	grep -v cpu_idle $(OUT)/burst.folded | grep -v do_idle | flamegraph --title "grep -v idle" > $(OUT)/busy.svg; \
	stackcollapse testdata/perf/before.txt.gz > $(OUT)/before.folded; \
	stackcollapse testdata/perf/after.txt.gz > $(OUT)/after.folded; \
	difffolded $(OUT)/before.folded $(OUT)/after.folded | flamegraph --title "Differential: red grew, blue shrank" > $(OUT)/diff.svg; \
	stackfilter --comm '^flamekit_burst$$' --hide '^(start_thread|run)$$' $(OUT)/burst.timed.folded | flamegraph --title "One process, two frames hidden" > $(OUT)/filtered.svg; \
	stacktop -n 5 $(OUT)/burst.timed.folded > $(OUT)/top.txt; \
	timeslice --heatmap=html --no-idle $(OUT)/burst.timed.folded > $(OUT)/explore.html
	@echo "Wrote:"; for f in whole.svg burst.svg quiet.svg heatmap.svg busy.svg diff.svg filtered.svg top.txt explore.html; do echo "  $(OUT)/$$f"; done
	@echo "Open $(OUT)/explore.html in a browser: select a range on the heat map to see its flame graph."

test: fmt vet staticcheck jscheck unit shellcheck

fmt:
	@bad=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$bad" ]; then echo "gofmt needed on:"; echo "$$bad"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) run $(STATICCHECK) ./...

# The pages' scripts: each file parses, and the explorer's modules as the
# page runs them (one strict-mode script, in explorer.go's scriptOrder)
# parse and declare each top-level name once (scripts/jslint.js).
jscheck:
	@if command -v node >/dev/null; then \
	  set -e; for f in $$(git ls-files '*.js'); do node --check $$f; done; \
	  mods=$$(sed -n 's|^[[:space:]]*"\([a-z0-9]*\.js\)",.*|pkg/view/explorer/\1|p' pkg/view/explorer/explorer.go); \
	  [ $$(echo $$mods | wc -w) -ge 2 ] || { echo "jscheck: no modules found in explorer.go's scriptOrder"; exit 1; }; \
	  tmp=$$(mktemp --suffix .js); trap 'rm -f $$tmp' EXIT; \
	  { echo '"use strict";'; cat $$mods; } > $$tmp; \
	  node --check $$tmp; node scripts/jslint.js $$mods; echo "jscheck: $$(git ls-files '*.js' | wc -l) scripts parse"; \
	else echo "jscheck: node not installed, skipped (apt-get install nodejs)"; fi

# -timeout 30m: the explorer's browser tests take minutes on a loaded
# machine, past go test's default of 10 minutes a package.
# NORACE: packages whose own code starts no goroutine (each has a test that
# checks it), run without the race detector: pkg/view/bursts's nights of
# real captures took 180 s under it, 15 s without. The fold they call is
# raced in its own packages' tests, and their code where the explorer's
# tests run it on the server's goroutines.
NORACE = ./pkg/view/bursts
unit:
	$(GO) test -race -count=1 -timeout 30m $$($(GO) list ./... | grep -v -x -F "$$($(GO) list $(NORACE))")
	$(GO) test -count=1 -timeout 30m $(NORACE)

# The fuzzing campaign: every fuzz target in turn (go test -fuzz takes one
# at a time), FUZZTIME each; a summary line per target, and at the end the
# targets that failed. A failing input is left in the package's
# testdata/fuzz/FuzzX/ by go test: fix the bug and commit it as a seed.
# Minimising a new input is bounded (-fuzzminimizetime), as on a loaded
# machine the minimiser of a large input is otherwise taken for a hang.
# -timeout 0: go test's default timeout (10m) covers fuzzing too, and would
# end a FUZZTIME=10m run as a failure. Run nothing else heavy meanwhile: a
# worker starved (or stopped) for seconds is reported as hung.
fuzz:
	@set -u; failed=""; for pkg in $$($(GO) list ./...); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    log=$$(mktemp); start=$$(date +%s); \
	    if $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 10s -timeout 0 $$pkg > $$log 2>&1; then res=ok; else res=FAIL; failed="$$failed $$pkg.$$target"; fi; \
	    execs=$$(grep -o 'execs: [0-9]*' $$log | tail -1 | cut -d' ' -f2); \
	    echo "fuzz $$res $$pkg $$target: $${execs:-?} execs in $$(( $$(date +%s) - start )) s"; \
	    [ $$res = ok ] || sed 's/^/    /' $$log; rm -f $$log; \
	  done; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: failed:$$failed"; exit 1; fi

shellcheck:
	@if command -v shellcheck >/dev/null; then \
	  shellcheck $$(grep -l '^#!.*sh' scripts/* e2e/testdata/bin/* e2e/testdata/travel/*.sh 2>/dev/null) && echo "shellcheck: scripts clean"; \
	else echo "shellcheck: not installed, skipped (apt-get install shellcheck)"; fi

bench:
	scripts/bench

clean:
	rm -rf $(BIN) $(OUT)
