# Lantern — the common tasks. `make run` starts Lantern, `make test` runs every test
# (installing what the tests need first: dfrotz, and the Ollama test server, which
# is built once from the Go module proxy and cached outside the repo; the Slurm
# test installs Debian's slurm-wlm and munge, or skips where it cannot).
GO ?= go

.PHONY: run test bench lint build

run:
	$(GO) run . $(ARGS)

build:
	CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=auto -o lantern .

test:
	./scripts/test-deps.sh
	./scripts/with-ollama.sh $(GO) test -race -timeout 60m ./...
	GO=$(GO) ./scripts/fuzz-brief.sh
	./scripts/tui-tmux-test.sh
	./scripts/slurm-test.sh

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
