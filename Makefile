# weathertag — the two commands a newcomer needs are `make run` and `make test`.
SWIFT ?= swift
BUILD_FLAGS ?=
DEBIAN_PACKAGES = libcurl4-openssl-dev libgps-dev gpsd python3 curl

.PHONY: all setup build run test lint format clean

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

lint:
	$(SWIFT) format lint --strict -r Sources Tests Package.swift

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

clean:
	rm -rf .build demo
