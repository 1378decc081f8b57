# The release build's flags, one definition for `make bench`, `make install`, `make hot-text` and debian/rules
# (each includes this file from the top of the tree).
#
# - The Swift runtime is linked in: 6 MiB less resident memory and a third faster start than the shared one, and
#   the package needs no toolchain.
# - Code is placed by use: every Swift function in a section of its own (`-function-sections`, dependencies too), and
#   lld places the functions release/hot-text.order names (those weathertag runs, from `make hot-text`) first,
#   together, with the PLT before them (release/layout.ld). A kernel that reads the binary in large page-cache folios
#   maps a whole folio, up to 2 MiB, for the first byte run in it: scattered, the 2 MiB of code a daemon runs kept
#   17 MiB of the binary resident (docs/PERFORMANCE.md, "Code placed by use"). The list changes where code lies,
#   never what it does.
# - Relative relocations packed (DT_RELR, glibc 2.36): 13 KiB of them instead of 1.5 MiB read at every start.
# - The executable's own symbols not exported (`--no-export-dynamic`, after the `-export-dynamic` the static
#   runtime's link arguments ask for): 22,000 of them were in its dynamic table, which every symbol the dynamic
#   loader binds at start (libstdc++'s, SQLite's) was looked up in first: a million of a start's 21 million
#   instructions, and 2 MiB of the file. Nothing in weathertag looks a symbol of the executable up by name (no dlsym,
#   no dladdr); the file's own symbol table is kept.
RELEASE_SWIFT_FLAGS_UNORDERED = -c release --static-swift-stdlib \
	-Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -use-ld=lld \
	-Xlinker -z -Xlinker pack-relative-relocs -Xlinker -T -Xlinker $(CURDIR)/release/layout.ld \
	-Xlinker --no-export-dynamic
RELEASE_SWIFT_FLAGS = $(RELEASE_SWIFT_FLAGS_UNORDERED) \
	-Xlinker --symbol-ordering-file=$(CURDIR)/release/hot-text.order -Xlinker --no-warn-symbol-ordering

# $(call release-build-path,PATH): empties the build folder PATH when these flags changed since it was built (SwiftPM
# kept dependencies compiled without -function-sections), and drops its binary so that it is linked again (SwiftPM
# does not see the order or the layout change).
release-build-path = if [ ! -e $(1)/.release-flags ] || [ release/flags.mk -nt $(1)/.release-flags ]; then \
		rm -rf $(1); mkdir -p $(1); touch $(1)/.release-flags; fi; \
	rm -f $(1)/release/weathertag
