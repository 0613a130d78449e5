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
build: ## Build bin/idemkit
	$(GO) build -o $(BIN) ./cmd/idemkit

.PHONY: test
test: ## Run every test (installs and starts Redis and Postgres for the store tests)
	$(GO) vet $(PKGS)
	scripts/testenv.sh exec $(GO) test -count=1 $(PKGS)

.PHONY: demo
demo: build ## Design a spec from the bundled example answers and show it
	./$(BIN) design --answers testdata/demo/charge-card.yaml --print

.PHONY: bench
bench: ## Run the benchmarks (benchstat-friendly: make bench | tee new.txt)
	scripts/testenv.sh exec $(GO) test -run='^$$' -bench=. -benchmem -count=6 $(PKGS)

.PHONY: testenv
testenv: ## Start the test Redis and Postgres and print their URLs (stop: make testenv-down)
	scripts/testenv.sh up
	scripts/testenv.sh env

.PHONY: testenv-down
testenv-down: ## Stop the test Redis and Postgres
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
