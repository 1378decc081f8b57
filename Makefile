# weathertag — the two commands a newcomer needs are `make run` and `make test`.
SWIFT ?= swift
BUILD_FLAGS ?=
DEBIAN_PACKAGES = libcurl4-openssl-dev libgps-dev gpsd python3 curl systemd e2fsprogs util-linux

FUZZ_TARGETS = stamper request json
FUZZ_SECONDS ?= 60
FUZZ_BUILD = .build/fuzz

BENCH_BUILD = .build/bench
BENCH_RUNS ?= 3
BENCH_FLAGS ?=

.PHONY: all setup build run test lint format clean fuzz bench

all: build

# Installs the Debian packages weathertag builds and tests against, when any is missing.
setup:
	@missing=""; for p in $(DEBIAN_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing; \
	fi

build: setup
	$(SWIFT) build $(BUILD_FLAGS)

# Starts the daemon in the foreground on ./demo/inbox (see tools/demo.sh): with $$OPENWEATHER_API_KEY it asks the
# real OpenWeather, without it the loopback stand-in.
run: build
	./tools/demo.sh "$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/weathertag"

# Every test: unit tests of the core and integration tests that drive the built binary with a real gpsd.
test: setup
	$(SWIFT) test --disable-xctest $(BUILD_FLAGS)

# libFuzzer: builds each fuzz target with -sanitize=fuzzer and runs it for FUZZ_SECONDS on a working copy of its
# seed corpus (Fuzz/corpus/TARGET). Swift's backtracer is off so that libFuzzer sees a trap and saves its input. A crash leaves its input in $(FUZZ_BUILD)/crashes/TARGET; add it to the corpus
# once fixed so that `make test` replays it for good.
fuzz: setup
	mkdir -p $(FUZZ_BUILD)
	@# gold fails linking libFuzzer into Swift programs: link with the toolchain's own lld.
	printf '{"schemaVersion": "1.0", "linker": {"path": "%s/ld.lld"}}\n' \
		"$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")" > $(FUZZ_BUILD)/toolset.json
	for target in $(FUZZ_TARGETS); do \
		$(SWIFT) build -c release --build-path $(FUZZ_BUILD) --toolset $(FUZZ_BUILD)/toolset.json \
			-Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING --product fuzz-$$target || exit 1; \
	done
	for target in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$target $(FUZZ_BUILD)/crashes/$$target; \
		cp -n Fuzz/corpus/$$target/* $(FUZZ_BUILD)/corpus/$$target/ 2>/dev/null; \
		echo "== fuzz-$$target for $(FUZZ_SECONDS) s"; \
		SWIFT_BACKTRACE=enable=no $(FUZZ_BUILD)/release/fuzz-$$target -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=5 \
			-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/crashes/$$target/ \
			$(FUZZ_BUILD)/corpus/$$target Fuzz/corpus/$$target > $(FUZZ_BUILD)/$$target.log 2>&1; \
		status=$$?; \
		grep -E "DONE|^Done [0-9]+ runs|^stat::number_of_executed_units|ERROR|SUMMARY|Test unit written" \
			$(FUZZ_BUILD)/$$target.log; \
		[ $$status -eq 0 ] || exit $$status; \
	done

# The benchmark (bench/run.py): release weathertag beside the filesystem limit, the script a user writes instead
# and nginx, in one run; prints the table and writes docs/PERFORMANCE.md. Exits non-zero only when it cannot run.
bench: setup
	@missing=""; for p in nginx-light inotify-tools; do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq \
			--no-install-recommends $$missing; \
	fi
	@# Statically linked Swift runtime: 6 MiB less resident memory and a third faster start than the shared one.
	$(SWIFT) build -c release --static-swift-stdlib --build-path $(BENCH_BUILD)/swift --product weathertag
	mkdir -p $(BENCH_BUILD)
	clang="$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")/clang"; \
		$$clang -O2 -Wall -o $(BENCH_BUILD)/fslimit bench/fslimit.c && \
		$$clang -O2 -Wall -o $(BENCH_BUILD)/loadgen bench/loadgen.c
	python3 bench/run.py --binary "$(BENCH_BUILD)/swift/release/weathertag" \
		--fslimit $(BENCH_BUILD)/fslimit --loadgen $(BENCH_BUILD)/loadgen --runs $(BENCH_RUNS) $(BENCH_FLAGS)

lint:
	$(SWIFT) format lint --strict -r Sources Tests Package.swift

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

clean:
	rm -rf .build demo
