# idemkit — run `make help` for the targets.
SHELL := /bin/bash
GO    ?= go
BIN   := bin/idemkit
PKGS  := ./...

.DEFAULT_GOAL := help

.PHONY: help
help: ## Show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## Build bin/idemkit and bin/idemkit-vet (the slim go vet tool)
	$(GO) build -o $(BIN) ./cmd/idemkit
	$(GO) build -o $(BIN)-vet ./cmd/idemkit-vet

.PHONY: test
test: ## Run every test, and every benchmark once so that a broken one fails (starts Redis and Postgres)
	$(GO) vet $(PKGS)
	scripts/testenv.sh exec $(GO) test -count=1 -bench=. -benchtime=1x $(PKGS)
	$(GO) test -race -count=1 -run 'Concurrent' ./internal/audit/internal/effect/ ./internal/audit/internal/claim/

.PHONY: demo
demo: build ## Design a spec from the bundled answers, then audit the buggy example service
	@echo '== idemkit design --answers testdata/demo/charge-card.yaml --print'
	./$(BIN) design --answers testdata/demo/charge-card.yaml --print
	@echo
	@echo '== idemkit audit ./... in testdata/example (one instance of each bug; exit 1 = findings)'
	cd testdata/example && ../../$(BIN) audit ./... || test $$? -eq 1
	@echo
	@echo '== idemkit audit ./... in testdata/example-fixed (the same service, fixed)'
	cd testdata/example-fixed && ../../$(BIN) audit ./...
	@echo 'demo: the fixed example audits clean: no findings in testdata/example-fixed'

.PHONY: bench
bench: ## Run the benchmarks (benchstat-friendly: make bench | tee new.txt)
	scripts/testenv.sh exec $(GO) test -run='^$$' -bench=. -benchmem -count=6 $(PKGS)

.PHONY: testenv
testenv: ## Start the test Redis, Redis Cluster (3 masters + replicas) and Postgres, and print their URLs (stop: make testenv-down)
	scripts/testenv.sh up
	scripts/testenv.sh env

.PHONY: testenv-down
testenv-down: ## Stop the test Redis, Redis Cluster and Postgres
	scripts/testenv.sh down

.PHONY: lint
lint: ## gofmt and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^testdata/')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

.PHONY: fuzz
fuzz: ## Run each fuzz target for FUZZTIME (default 30s)
	@for pkg in $$($(GO) list $(PKGS)); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$${FUZZTIME:-30s} $$pkg || exit 1; \
	  done; \
	done

.PHONY: clean
clean: ## Remove build output
	rm -rf bin

# The two targets below run idemkit as go vet's -vettool with -cachekey set
# to a new value each time. go vet keys its cache on the tool's flags, so the
# analysis runs again while the compiled packages stay warm; without it, go
# vet replays stored results, including the empty output it stores for a
# package it analysed only as a dependency of another.

.PHONY: vet-std
vet-std: build ## Run the audit suite over the whole standard library under go vet (slow: minutes); fails on any finding or crash
	@out=$(CURDIR)/bin/vet-std.txt; key=$$(date +%s%N); start=$$(date +%s); \
	echo "$(GO) vet -vettool=$(CURDIR)/$(BIN) -cachekey=$$key std"; \
	$(GO) vet -vettool=$(CURDIR)/$(BIN) -cachekey=$$key std >$$out 2>&1; status=$$?; \
	findings=$$(grep -cE '^[^[:space:]#][^ ]*\.go:[0-9]+:[0-9]+: [^[:space:]]' $$out); \
	panics=$$(grep -c 'panic' $$out); \
	grep -vE '^#' $$out | head -n 100; \
	echo "vet-std: exit status $$status, $$findings findings, $$panics lines mentioning a panic, $$(( $$(date +%s) - start ))s; output in bin/vet-std.txt"; \
	test $$status -eq 0

BENCH_PKGS ?= ./...
BENCH_RUNS ?= 3
VETTOOL    ?= $(BIN)

.PHONY: bench-vet
bench-vet: build ## Compare go vet -vettool=$(VETTOOL) (default bin/idemkit; try VETTOOL=bin/idemkit-vet) with plain go vet on BENCH_PKGS: wall time, CPU, peak RSS
	@test -x /usr/bin/time || { echo "bench-vet needs GNU time (apt-get install time)"; exit 2; }
	@tool=$(CURDIR)/$(VETTOOL); tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	echo "Warming the build cache: each go vet once over $(BENCH_PKGS)"; \
	$(GO) vet -printf.funcs=warm$$$$ $(BENCH_PKGS) >/dev/null 2>&1; \
	$(GO) vet -vettool=$$tool -cachekey=warm$$$$ $(BENCH_PKGS) >/dev/null 2>&1; \
	for i in $$(seq $(BENCH_RUNS)); do \
	  key=$$(date +%s%N); \
	  /usr/bin/time -f '%e %U %S %M' -a -o $$tmp/vet $(GO) vet -printf.funcs=bench$$key $(BENCH_PKGS) >/dev/null 2>&1; \
	  /usr/bin/time -f '%e %U %S %M' -a -o $$tmp/idemkit $(GO) vet -vettool=$$tool -cachekey=$$key $(BENCH_PKGS) >/dev/null 2>&1; \
	done; \
	median() { grep -E '^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+$$' $$tmp/$$1 | awk -v c=$$2 '{print $$c}' | sort -g | awk '{v[NR]=$$1} END {print v[int((NR+1)/2)]}'; }; \
	cpu() { grep -E '^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+$$' $$tmp/$$1 | awk '{print $$2+$$3}' | sort -g | awk '{v[NR]=$$1} END {print v[int((NR+1)/2)]}'; }; \
	vw=$$(median vet 1); iw=$$(median idemkit 1); vc=$$(cpu vet); ic=$$(cpu idemkit); vm=$$(median vet 4); im=$$(median idemkit 4); \
	echo; echo "Medians of $(BENCH_RUNS) runs over $(BENCH_PKGS), each with a new flag value (no cached analysis):"; \
	printf '  %-38s %8s %8s %12s\n' command "wall s" "cpu s" "peak RSS MB"; \
	printf '  %-38s %8s %8s %12d\n' "$(GO) vet -printf.funcs=benchN" $$vw $$vc $$((vm / 1024)); \
	printf '  %-38s %8s %8s %12d\n' "$(GO) vet -vettool=$(VETTOOL) -cachekey=N" $$iw $$ic $$((im / 1024)); \
	awk -v iw=$$iw -v vw=$$vw -v ic=$$ic -v vc=$$vc -v im=$$im -v vm=$$vm 'BEGIN {printf "idemkit / go vet: %.2fx wall time, %.2fx CPU, %.2fx peak RSS (of the largest process)\n", iw/vw, ic/vc, im/vm}'

.PHONY: audit-score
audit-score: ## Score the audit on testdata/corpus: precision and recall per check (ARGS=-v lists each miss and false positive)
	$(GO) run ./scripts/auditscore $(ARGS) testdata/corpus

AUDIT_DIR ?= testdata/corpus
STATICCHECK_VERSION ?= v0.8.2

.PHONY: bench-audit
bench-audit: build ## Peak memory and time of idemkit audit ./... in AUDIT_DIR (default testdata/corpus): uncached, cached repeat, and staticcheck on the same packages
	@test -x /usr/bin/time || { echo "bench-audit needs GNU time (apt-get install time)"; exit 2; }
	@GOBIN=$(CURDIR)/bin $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	@tool=$(CURDIR)/$(BIN); sc=$(CURDIR)/bin/staticcheck; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; gocache=$$($(GO) env GOCACHE); \
	cd $(AUDIT_DIR) && echo "Warming the build cache in $(AUDIT_DIR)" && $(GO) build ./... >/dev/null 2>&1; \
	measure() { label=$$1; shift; /usr/bin/time -f "%e %M" -o $$tmp/t "$$@" >/dev/null 2>&1; tail -n 1 $$tmp/t | awk -v l="$$label" '{printf "  %-44s %8s s %8d MB\n", l, $$1, $$2/1024}'; }; \
	echo "In $(AUDIT_DIR):"; \
	measure "idemkit audit ./... (no cache)" env IDEMKIT_CACHE=off $$tool audit ./...; \
	measure "idemkit audit ./... (cold cache)" env IDEMKIT_CACHE=$$tmp/cache $$tool audit ./...; \
	measure "idemkit audit ./... (cached repeat)" env IDEMKIT_CACHE=$$tmp/cache $$tool audit ./...; \
	measure "staticcheck@$(STATICCHECK_VERSION) ./... (no cache)" env XDG_CACHE_HOME=$$tmp/sc GOCACHE=$$gocache $$sc ./...

# Targets that live in files of their own (mk/*.mk), one per tool or concern.
-include mk/*.mk
