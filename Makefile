# futurerun — build, test, install. `make test` is what CI runs (.ci/run).
# The toolchain: swift on PATH, else the one at /opt/swift.
SWIFT      ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
SWIFT_BIN  := $(dir $(SWIFT))
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man/man1
STRICT     := -Xswiftc -warnings-as-errors -Xcc -Werror
# The release binary is a static executable (Swift runtime and libc linked in, no dynamic loader),
# so start-up loads nothing. lld links it; --no-warnings silences the one warning, glibc's notice
# that the runtime's optional dlopen (of a prespecialization library it can do without) needs a
# matching glibc. Generic types get their metadata built by the compiler (prespecialized) and
# reached by direct accessors, not by demangling a type name at first use. (The figures behind
# each flag: docs/PERFORMANCE.md, "What made it so".)
METADATA   := -Xswiftc -Xfrontend -Xswiftc -prespecialize-generic-metadata \
              -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
# Cross-module optimization lets futurerun's kit (FutureRunModel … FutureRunKit) specialize FutureCore's generic futures for its own
# types instead of calling their unspecialized code, which builds metadata and boxes values at run
# time.
CMO        := -Xswiftc -cross-module-optimization
RELEASE    := -c release --static-swift-stdlib -Xswiftc -static-executable -Xswiftc -use-ld=lld -Xlinker --no-warnings $(METADATA) $(CMO)

.PHONY: all build release test tools lint docs tsan fuzz example generate install install-files uninstall dist bench bench-quick bench-start bench-deps bench-remote bench-pipe bench-gnu bench-slurm bench-fast bench-cache bench-futures clean

all: build

build:
	$(SWIFT) build $(STRICT)

release:
	$(SWIFT) build $(RELEASE) $(STRICT)

## Every test: unit, library behaviour on real processes, end-to-end on the built binary; then the
## end-to-end suite again on the release binary, the one that ships (built with other flags); then
## the engine's tests and the release suite once more with the portable exit watcher (SIGCHLD, what
## a kernel without pidfd gets) forced, and every isolatable job in its slot's warm shell; then the
## release artifacts (make dist), installed and run.
test: tools lint release
	$(SWIFT) build --build-tests $(STRICT)
	$(SWIFT) test --skip-build
	FUTURERUN_BINARY=$(CURDIR)/.build/release/futurerun $(SWIFT) test --skip-build --filter futurerunTests
	@echo "== the engine's tests and the end-to-end suite again, with the portable exit watcher (SIGCHLD) forced"
	@echo "== and every isolatable job in a warm shell (FUTURERUN_WARM_SHELLS=all)"
	FUTURECORE_EXIT_WATCHER=childSignal $(SWIFT) test --skip-build --filter FutureCoreTests
	FUTURECORE_EXIT_WATCHER=childSignal FUTURERUN_WARM_SHELLS=all FUTURERUN_BINARY=$(CURDIR)/.build/release/futurerun \
	  $(SWIFT) test --skip-build --filter futurerunTests
	@echo "== the release artifacts, installed as a user would (tarball; .deb with dpkg as root)"
	$(MAKE) dist
	scripts/check-dist $(DIST)

## What the tests use besides Swift: installed where the machine allows (root with apt), else one
## line names the packages and nothing is built.
tools:
	@scripts/test-tools

## The formatting rules of .swift-format, checked (swift format -i -r Sources Tests fixes most).
lint:
	$(SWIFT) format lint --strict -r Sources Tests Examples bench/futurecore Package.swift

## The documentation (DocC) of FutureCore and FutureProcess into .build/docs/MODULE, from their
## symbols and catalogs; a warning fails.
docs:
	$(SWIFT) package dump-symbol-graph --minimum-access-level public >/dev/null
	mkdir -p .build/docs; for module in FutureCore FutureProcess; do \
	  rm -rf .build/symbol-graphs/$$module && mkdir -p .build/symbol-graphs/$$module && \
	  cp .build/*/symbolgraph/$$module.symbols.json .build/symbol-graphs/$$module/ && \
	  $(SWIFT_BIN)docc convert Sources/$$module/$$module.docc --additional-symbol-graph-dir .build/symbol-graphs/$$module \
	    --output-path .build/docs/$$module --fallback-display-name $$module \
	    --fallback-bundle-identifier org.futurerun.$$module --warnings-as-errors || exit 1; \
	done

## The same suite under the thread sanitizer. FUTURECORE_THREAD_SANITIZER makes every lock one it
## can see (Locked.swift); the checks of what the sanitizer itself changes (spawn errors, resident
## size, start-up time) are skipped under it (`isThreadSanitized`).
tsan:
	$(SWIFT) test --sanitize=thread -Xswiftc -DFUTURECORE_THREAD_SANITIZER

## The quoting fuzz at scale: random templates times hostile arguments under dash and bash
## (`make test` runs 2,000 cases; FUTURERUN_FUZZ_SEED=N repeats a run).
FUZZ_CASES ?= 50000
fuzz:
	$(SWIFT) build --build-tests $(STRICT)
	FUTURERUN_FUZZ_CASES=$(FUZZ_CASES) $(SWIFT) test --skip-build --filter QuotingFuzz

## The completions and the man page's OPTIONS section, rendered from the option table
## (Sources/FutureRunOptions/OptionTable.swift). They stay checked in; a test fails when stale.
generate:
	$(SWIFT) run $(STRICT) generate-usage

## Builds (once; later runs reuse the build) and runs futurerun on a real example.
example: build
	.build/debug/futurerun 'sleep 1; echo a' ::: 'echo b'

BASHDIR    ?= $(PREFIX)/share/bash-completion/completions
ZSHDIR     ?= $(PREFIX)/share/zsh/site-functions
FISHDIR    ?= $(PREFIX)/share/fish/vendor_completions.d

install: release
	$(MAKE) install-files BIN=.build/release/futurerun

## Copies BIN (default: the release build), stripped, the man page and completions under PREFIX.
BIN ?= .build/release/futurerun
install-files:
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHDIR) $(DESTDIR)$(ZSHDIR) $(DESTDIR)$(FISHDIR)
	install -m 755 -s $(BIN) $(DESTDIR)$(BINDIR)/futurerun
	install -m 644 docs/futurerun.1 $(DESTDIR)$(MANDIR)/futurerun.1
	install -m 644 completions/futurerun.bash $(DESTDIR)$(BASHDIR)/futurerun
	install -m 644 completions/_futurerun $(DESTDIR)$(ZSHDIR)/_futurerun
	install -m 644 completions/futurerun.fish $(DESTDIR)$(FISHDIR)/futurerun.fish

## Release artifacts in .build/dist: futurerun-VERSION-linux-ARCH.tar.gz (the stripped static binary,
## man page, completions, LICENSE, README), a .deb of the same files in their system places, a
## Homebrew formula for the tarball, and SHA256SUMS. scripts/check-dist installs both and runs them.
VERSION    := $(shell sed -n 's/.*static let version = "futurerun \(.*\)"/\1/p' Sources/FutureRunOptions/Usage/Help.swift)
ARCH       := $(shell uname -m)
DIST       := .build/dist
dist: release
	scripts/make-dist $(VERSION) $(ARCH) $(DIST) .build/release/futurerun

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/futurerun $(DESTDIR)$(MANDIR)/futurerun.1 $(DESTDIR)$(BASHDIR)/futurerun \
	      $(DESTDIR)$(ZSHDIR)/_futurerun $(DESTDIR)$(FISHDIR)/futurerun.fish

bench: release
	bench/run.sh .build/release/futurerun

bench-quick: release
	QUICK=1 bench/run.sh .build/release/futurerun

## Only start-up: the stripped binary's --version, and one job, against sh -c true.
bench-start: release
	START=1 bench/run.sh .build/release/futurerun

## Only the cost of jobs that wait for jobs (a chain, a root with many dependants).
bench-deps: release
	DEPS=1 bench/run.sh .build/release/futurerun

## Only jobs on another host, against GNU parallel -M -S (a private sshd on 127.0.0.2; root).
bench-remote: release
	REMOTE=1 bench/run.sh .build/release/futurerun

## Only --pipe and --pipe-part on 1 GiB of text, against cat | wc -l and GNU parallel.
bench-pipe: release
	PIPE=1 bench/run.sh .build/release/futurerun

## Only GNU's grammar: futurerun --gnu against its own grammar and GNU parallel.
bench-gnu: release
	GNU=1 bench/run.sh .build/release/futurerun

## Only trivial jobs, against GNU parallel 20260522's --fast, its default mode and xargs -P.
bench-fast: release
	FAST=1 bench/run.sh .build/release/futurerun

## Only --cache: 1,000 jobs with an empty cache and with a full one (no process starts), and xargs -P.
bench-cache: release
	CACHE=1 bench/run.sh .build/release/futurerun

## FutureCore beside Swift concurrency: promises, one future at a time, fan-outs (the release build).
bench-futures: release
	.build/release/futurecore-bench

## Only jobs as Slurm steps, against parallel srun (a private one-node cluster; root).
bench-slurm: release
	SLURM=1 bench/run.sh .build/release/futurerun

clean:
	rm -rf .build
