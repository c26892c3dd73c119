GO      ?= go
BIN     := bin/stax
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GOFILES  = $(shell find . -name '*.go' -not -path './testdata/*' -not -path './bin/*')
STATICCHECK_VERSION := v0.8.2

.PHONY: build test unit vet fmt-check lint bench clean

build:
	$(GO) build -trimpath -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/stax

## test: everything CI runs: formatting, vet, and all tests under the race detector.
test: fmt-check vet unit

unit:
	$(GO) test -race -count=1 ./...

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $(GOFILES)); \
	if [ -n "$$out" ]; then echo "These files need gofmt -w:"; echo "$$out"; exit 1; fi

## lint: fmt-check, vet and staticcheck (fetched through the Go module proxy).
lint: fmt-check vet
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

## bench: the benchmarks, with the ratios they report against their baselines.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin
