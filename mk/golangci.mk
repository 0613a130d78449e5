# golangci-lint with idemkit's module plugin (docs/golangci-lint.md).
#
# `golangci-lint custom` clones golangci-lint's repository at a tag, writes
# cmd/golangci-lint/plugins.go importing each plugin, runs go mod tidy and
# builds. make golangci does the same from the Go module proxy:
# tools/golangci is a module holding that plugins.go (importing ./golangci
# through a replace directive), and golangci-lint's main.go is copied in
# from the module of the version tools/golangci/go.mod requires. Bump it
# with: cd tools/golangci && go get github.com/golangci/golangci-lint/v2@vX.Y.Z
#
# Like custom, the version stamped in the binary ends in a hash of the
# plugin's source (here: the Go and embedded files of ./golangci and the
# packages of this module it imports, and the build module's go.sum).
# golangci-lint salts its result cache with its version, so a changed
# check is never answered from results an older build cached.

GOLANGCI_DIR := tools/golangci
GOLANGCI_BIN := bin/custom-gcl
GOLANGCI_SRC := '{{if .Module}}{{if .Module.Main}}{{range .GoFiles}}{{$$.Dir}}/{{.}}{{"\n"}}{{end}}{{range .EmbedFiles}}{{$$.Dir}}/{{.}}{{"\n"}}{{end}}{{end}}{{end}}'

.PHONY: golangci
golangci: ## Build bin/custom-gcl, golangci-lint with the idemkit plugin, as golangci-lint custom would (cold: minutes, warm: seconds)
	@set -e; export GOWORK=off; \
	hash=$$( { $(GO) list -deps -f $(GOLANGCI_SRC) ./golangci | grep . | sed 's|^$(CURDIR)/||' | sort | xargs sha256sum; \
	  sha256sum $(GOLANGCI_DIR)/go.sum; } | sha256sum | cut -c1-16); \
	cd $(GOLANGCI_DIR); \
	version=$$($(GO) list -m -f '{{.Version}}' github.com/golangci/golangci-lint/v2); \
	$(GO) mod download github.com/golangci/golangci-lint/v2; \
	install -m 644 "$$($(GO) list -m -f '{{.Dir}}' github.com/golangci/golangci-lint/v2)/cmd/golangci-lint/main.go" main.go; \
	$(GO) mod tidy; \
	echo "$(GO) build -o $(GOLANGCI_BIN) ./$(GOLANGCI_DIR)  # golangci-lint $$version-custom-gcl-$$hash"; \
	$(GO) build -ldflags "-s -w -X 'main.version=$$version-custom-gcl-$$hash' -X 'main.date=$$(date -u +%FT%TZ)'" \
	  -o $(CURDIR)/$(GOLANGCI_BIN) .

.PHONY: golangci-test
golangci-test: golangci ## Build bin/custom-gcl, then check its findings on testdata/example against idemkit audit's
	IDEMKIT_CUSTOM_GCL=$(CURDIR)/$(GOLANGCI_BIN) $(GO) test -count=1 -run '^TestCustomGCL' ./golangci
