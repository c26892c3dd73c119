GO      ?= go
BIN     := bin/stax
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GOFILES  = $(shell find . -name '*.go' -not -path './testdata/*' -not -path './bin/*')
STATICCHECK_VERSION := v0.8.2
# Release tools, built from source through the Go module proxy into bin/tools.
# GoReleaser v2.15.3 and later need go.digitalxero.dev/go-msix, which the
# module proxy does not serve, and v2.18 needs Go 1.27.
GORELEASER_VERSION := v2.15.2
KO_VERSION         := v0.19.1
# The other implementations test/e2e/cosign.sh checks stax's signatures
# against, built the same way.
COSIGN_VERSION     := v3.1.3
REGCTL_VERSION     := v0.11.7
ORAS_VERSION       := v1.3.6
TOOLS      ?= $(CURDIR)/bin/tools
GORELEASER := $(TOOLS)/goreleaser-$(GORELEASER_VERSION)/goreleaser
KO         := $(TOOLS)/ko-$(KO_VERSION)/ko
COSIGN     := $(TOOLS)/cosign-$(COSIGN_VERSION)/cosign
REGCTL     := $(TOOLS)/regctl-$(REGCTL_VERSION)/regctl
ORAS       := $(TOOLS)/oras-$(ORAS_VERSION)/oras
# The commit's time: release archives and the image are dated with it, so a
# commit builds to the same bytes anywhere.
COMMIT_EPOCH = $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
COMMIT_DATE  = $(shell git log -1 --format=%cI 2>/dev/null || echo 1970-01-01T00:00:00Z)
# Where make image writes the image's OCI layout (ko names the image after
# this path, so it must be lowercase).
IMAGE_LAYOUT ?= bin/image

.PHONY: build test unit race vet fmt-check lint bench docs clean release-snapshot image e2e-tools

build:
	$(GO) build -trimpath -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/stax

## test: everything CI runs: formatting, vet, and all tests under the race detector.
test: fmt-check vet race

## unit: the quick check while working: every package's tests, without the race
## detector and with -short (the tests that write tens of MiB to measure the heap
## skip, as do those that take a command to a bound, a million tags or a 64 MiB
## store index; a randomized one runs fewer rounds). make test runs them all.
unit:
	@if [ -n "$(UNIT_TMPFS)" ] && [ "$$(stat -f -c %T "$(UNIT_TMPFS)" 2>/dev/null)" = tmpfs ] && \
		[ "$$(df -Pk "$(UNIT_TMPFS)" | awk 'NR == 2 { print $$4 }')" -ge $(UNIT_TMPFS_KB) ]; then \
		dir=$$(mktemp -d "$(UNIT_TMPFS)/stax-unit.XXXXXX") || exit 2; \
		trap 'rm -rf "$$dir"' EXIT; trap 'exit 130' INT TERM; \
		printf '#!/bin/sh\n' >"$$dir/exec-check" && chmod +x "$$dir/exec-check"; \
		if "$$dir/exec-check" 2>/dev/null; then \
			rm -f "$$dir/exec-check"; \
			echo "make unit: temporary files in $$dir (UNIT_TMPFS= keeps TMPDIR)"; \
			export TMPDIR=$$dir; \
		else \
			echo "make unit: $(UNIT_TMPFS) runs no programs (noexec), and go test runs the test binaries it links in TMPDIR: TMPDIR kept"; \
		fi; \
	fi; \
	set -x; GOGC=$(UNIT_GOGC) $(GO) test -short -count=1 -p $(UNIT_PROCS) -ldflags=-w ./...

# make unit runs twice as many test binaries at once as there are CPUs.
# go test runs one a CPU by default, which leaves CPUs idle here: the
# binaries wait on the registries, git servers and stax processes they
# start, and each is linked just before it runs. At one a CPU, on two CPUs,
# cmd/stax held one of them for the whole run while the other linked and
# ran the forty other packages one after another.
CPUS       := $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
UNIT_PROCS := $(shell echo $$(( $(CPUS) * 2 )))

# make unit is bound by CPU, and near a third of what cmd/stax's tests
# spend in their own process is the garbage collector's: the registries
# the tests start read every blob through a new 4 MiB buffer
# (distribution's storage), so the heap turns over gigabytes while what
# is live stays small, and at the default GOGC=100 the collector runs
# every few blobs. At 400 it runs a quarter as often: cmd/stax's tests
# took 11-15 s less CPU (of 60), and twice the memory at their peak
# (2.4 GiB, from 1.2). The tests that bound memory read the
# heap after a forced collection or count what was allocated, which
# GOGC does not change; those that measure a peak are benchmarks.
UNIT_GOGC ?= 400
# The tests write and remove tens of thousands of files in their
# temporary directories, and on a disk file system the kernel's work
# creating them was a third of make unit's CPU (43 s of system time of
# 118 s, on this project's 2-core machine with ext4). make unit
# therefore puts its temporary files, and the test binaries go test
# links, in a directory of its own on UNIT_TMPFS when that is a tmpfs
# with UNIT_TMPFS_KB free (the tests hold a few hundred MiB at most at
# once; a container's 64 MiB /dev/shm is passed over) and runs programs
# (a container's /dev/shm, and a hardened host's, is mounted noexec,
# where go test could not run what it links), and removes it when it
# ends; UNIT_TMPFS= keeps TMPDIR. make test, what CI runs, keeps
# TMPDIR: its tests see the file system users' projects are on.
UNIT_TMPFS    ?= /dev/shm
UNIT_TMPFS_KB ?= 2097152
# -ldflags=-w leaves DWARF out of the test binaries, which nothing here
# reads (a panic's trace comes from the symbol table): linking cmd/stax's
# took 1.3 s less CPU, of 4. -vet=off would save nothing: go test's vet
# results are cached with the build.

# MEMORY_TESTS measure the heap, which the race detector distorts (it drops
# a random part of what is put back in a sync.Pool): they skip themselves
# under -race and run here without it.
MEMORY_TESTS := MemoryFlat|HoldsLittle

# The race detector sleeps a second at the exit of every test binary by
# default (GORACE atexit_sleep_ms), for goroutines still running after the
# tests to report a race; a race during a test fails that test whatever the
# setting. With some forty packages the sleeps were a fifth of make test.
# go vet runs before, with every analyzer, so go test's own subset of them
# is off here. The memory tests run beside the race run, in their own
# process, whose heap the other does not touch; make fails if either fails.
## race: every test under the race detector, and the memory tests beside it without.
race:
	$(GO) test -count=1 -vet=off -run '$(MEMORY_TESTS)' ./layers & memory=$$!; \
	GORACE=atexit_sleep_ms=0 $(GO) test -race -count=1 -vet=off ./...; race=$$?; \
	wait $$memory && exit $$race

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

## docs: regenerate docs/cli, the command reference, from the commands (a test fails when it is stale).
docs:
	$(GO) run ./cmd/stax docs markdown docs/cli

## release-snapshot: the release archives, checksums and SBOMs of every platform in dist/, without publishing.
release-snapshot: $(GORELEASER)
	$(GO) build -o $(TOOLS)/stax-sbom ./internal/cmd/sbom
	PATH="$(TOOLS):$$PATH" SOURCE_DATE_EPOCH=$(COMMIT_EPOCH) COMMIT_DATE=$(COMMIT_DATE) \
		$(GORELEASER) release --snapshot --clean

## image: the container image (linux/amd64 and linux/arm64) as an OCI layout in $(IMAGE_LAYOUT), built with ko,
## offline and without Docker: its base (internal/cmd/imagebase) is written into ko's cache and pinned by digest.
image: $(KO)
	rm -rf $(IMAGE_LAYOUT)
	base=$$($(GO) run ./internal/cmd/imagebase $(TOOLS)/ko-cache/img) && \
	KOCACHE=$(TOOLS)/ko-cache KO_DEFAULTBASEIMAGE=stax.invalid/static@$$base KO_DOCKER_REPO=stax \
	VERSION=$(VERSION) SOURCE_DATE_EPOCH=$(COMMIT_EPOCH) \
	$(KO) build ./cmd/stax --bare --push=false --oci-layout-path $(IMAGE_LAYOUT) \
		--platform linux/amd64,linux/arm64 --image-user 65532:65532 --sbom none

## e2e-tools: cosign, regctl and oras, which test/e2e/cosign.sh checks signatures with, built into $(TOOLS).
e2e-tools: $(COSIGN) $(REGCTL) $(ORAS)

$(GORELEASER):
	GOBIN=$(dir $@) $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

$(KO):
	GOBIN=$(dir $@) $(GO) install github.com/google/ko@$(KO_VERSION)

$(COSIGN):
	GOBIN=$(dir $@) $(GO) install github.com/sigstore/cosign/v3/cmd/cosign@$(COSIGN_VERSION)

$(REGCTL):
	GOBIN=$(dir $@) $(GO) install github.com/regclient/regclient/cmd/regctl@$(REGCTL_VERSION)

$(ORAS):
	GOBIN=$(dir $@) $(GO) install oras.land/oras/cmd/oras@$(ORAS_VERSION)

clean:
	rm -rf bin dist
