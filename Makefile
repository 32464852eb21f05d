# Lantern — the common tasks. `make run` starts Lantern, `make test` runs every test
# (scripts/test.sh: installs what the tests need first — dfrotz, tmux, chromium,
# the Ollama test server, built once from the Go module proxy and cached outside
# the repo, Slurm and munge — then times each step and names the ten slowest
# tests), `make check` is the quick loop (scripts/check.sh: vet, gofmt and the
# changed packages' short tests).
GO ?= go

.PHONY: run test check bench lint build

run:
	$(GO) run . $(ARGS)

build:
	CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=auto -o lantern .

test:
	GO=$(GO) ./scripts/test.sh

check:
	GO=$(GO) ./scripts/check.sh

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
