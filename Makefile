# rocelab: `make demo` and `make test` are all a new user needs.
# Variables: PREFIX, DESTDIR (install), CRC=isal|zlib (CRC-32 library), CC, WERROR=1 (warnings are
# errors: CI and `make test` set it; a user's `make` does not stop at a newer compiler's new warning).

PREFIX ?= /usr/local
DESTDIR ?=
CRC ?= isal
CC ?= cc
FUZZ_SECONDS ?= 60

B := build
WERROR ?=
WARN := -std=c11 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror)
CPPFLAGS += -D_DEFAULT_SOURCE -Icore/include
CFLAGS ?= -O2 -g
ALL_CFLAGS = $(WARN) $(CFLAGS)
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

ifeq ($(CRC),isal)
CRC_DEF := -DRL_CRC_ISAL
CRC_LIBS := -lisal
else
CRC_DEF :=
CRC_LIBS := -lz
endif

PCAP_LIBS := $(shell pkg-config --libs libpcap 2>/dev/null || echo -lpcap)
CUNIT_LIBS := -lcunit

CORE_SRC := $(wildcard core/src/*.c)
CLI_SRC := $(wildcard cli/*.c)
PCAPGEN_SRC := $(wildcard pcapgen/*.c)
UNIT_SRC := $(wildcard tests/unit/*.c)
# calloc() through testlib.c's __wrap_calloc, so that a test can make one allocation fail
UNIT_WRAP := -Wl,--wrap=calloc

# One object tree per flavour: normal, sanitized (isa-l), sanitized (zlib).
core_objs = $(patsubst core/src/%.c,$(1)/core/%.o,$(CORE_SRC))
pcapgen_objs = $(patsubst pcapgen/%.c,$(1)/pcapgen/%.o,$(PCAPGEN_SRC))

# The include graph against the layers (core <- pcapgen <- cli; dissector on core).
layers-test:
	sh tests/layers/run.sh

.PHONY: layers-test scan-lookup all lib man bootstrap demo test unit cli-test docs-test clang-test peer-test switch-test hostile-test lab-test realrxe-test grade handout oracle report-test scenarios fuzz mutate bench install uninstall clean help
.DEFAULT_GOAL := all

all: $(B)/librocelab.a $(B)/rocelab

help:
	@echo "make demo      install what is missing, build, run lab 01 (real RoCEv2 between two namespaces)"
	@echo "make test      install what is missing, build, run every test"
	@echo "make grade     grade your lab exercises (labs/), with a score table"
	@echo "make handout   the learners' copy of the labs, without solutions: build/rocelab-labs.tar.gz"
	@echo "make realrxe-test  rocelab against the real kernel Soft-RoCE, in a VM (rocelab realrxe)"
	@echo "make switch-test  rocelab switch between namespaces: ECN marks, drops, the tbf baseline (part of make test)"
	@echo "make report-test  rocelab report's page in headless Chromium, against tshark (part of make test)"
	@echo "make bench     speed benchmarks (bench/)"
	@echo "make mutate    explain and the plugin under ASan on every gen scenario, mutated (part of make test)"
	@echo "make fuzz      run the libFuzzer targets (decoder, CM agent) for FUZZ_SECONDS each (default 60)"
	@echo "make install   install rocelab, its man pages, bash completion, labs, librocelab.a, headers and"
	@echo "               rocelab.pc under PREFIX"
	@echo "make plugin install-plugin   build the Wireshark plugin, install it for you (root: system-wide)"

# `make demo` installs only what the demo needs; every other target all the tests need.
bootstrap:
	@sh scripts/bootstrap.sh $(BOOTSTRAP_FOR)
demo: BOOTSTRAP_FOR = demo

lib: $(B)/librocelab.a

# ---- normal build ---------------------------------------------------------
$(B)/core/%.o: core/src/%.c $(wildcard core/include/rocelab/*.h core/src/*.h) | $(B)/core
	$(CC) $(CPPFLAGS) $(CRC_DEF) $(ALL_CFLAGS) -Icore/src -c $< -o $@

# Switching CRC= rebuilds the one object that depends on it.
$(B)/crc-$(CRC).stamp: | $(B)/core
	rm -f $(B)/crc-*.stamp
	touch $@
$(B)/core/crc32.o: $(B)/crc-$(CRC).stamp

$(B)/librocelab.a: $(call core_objs,$(B))
	$(AR) rcs $@ $^

# pcapgen/ is built on its own, seeing core's headers and its own only: it cannot reach up into cli/.
$(B)/pcapgen/%.o: pcapgen/%.c $(wildcard pcapgen/*.h core/include/rocelab/*.h) | $(B)/pcapgen
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -Ipcapgen -c $< -o $@

$(B)/libpcapgen.a: $(call pcapgen_objs,$(B))
	$(AR) rcs $@ $^

# The report page's script and styles, compiled into rocelab as strings (cli/report/README.md).
REPORT_ASSETS = cli/report/report.css cli/report/report.js
$(B)/gen/report_assets.h: $(REPORT_ASSETS) mk/embed.sh
	@mkdir -p $(@D)
	sh mk/embed.sh $@ cli_report_css=cli/report/report.css cli_report_js=cli/report/report.js

$(B)/rocelab: $(CLI_SRC) $(wildcard cli/*.h pcapgen/*.h) $(B)/gen/report_assets.h $(B)/libpcapgen.a $(B)/librocelab.a
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -Icli -I$(B)/gen -Ipcapgen $(CLI_SRC) -o $@ $(B)/libpcapgen.a $(B)/librocelab.a $(PCAP_LIBS) $(CRC_LIBS) -lm -pthread

# ---- sanitized builds for the unit tests ---------------------------------
$(B)/asan-isal/core/%.o: core/src/%.c $(wildcard core/include/rocelab/*.h core/src/*.h) | $(B)/asan-isal/core
	$(CC) $(CPPFLAGS) -DRL_CRC_ISAL $(WARN) -O1 -g $(SAN) -c $< -o $@
$(B)/asan-zlib/core/%.o: core/src/%.c $(wildcard core/include/rocelab/*.h core/src/*.h) | $(B)/asan-zlib/core
	$(CC) $(CPPFLAGS) $(WARN) -O1 -g $(SAN) -c $< -o $@

$(B)/unit-asan-isal: $(UNIT_SRC) $(wildcard tests/unit/*.h) $(call core_objs,$(B)/asan-isal)
	$(CC) $(CPPFLAGS) -DRL_CRC_ISAL $(WARN) -O1 -g $(SAN) -Itests/unit $(UNIT_SRC) $(call core_objs,$(B)/asan-isal) -o $@ $(UNIT_WRAP) $(CUNIT_LIBS) -lisal -lz
$(B)/unit-asan-zlib: $(UNIT_SRC) $(wildcard tests/unit/*.h) $(call core_objs,$(B)/asan-zlib)
	$(CC) $(CPPFLAGS) $(WARN) -O1 -g $(SAN) -Itests/unit $(UNIT_SRC) $(call core_objs,$(B)/asan-zlib) -o $@ $(UNIT_WRAP) $(CUNIT_LIBS) -lz
$(B)/unit: $(UNIT_SRC) $(wildcard tests/unit/*.h) $(B)/librocelab.a
	$(CC) $(CPPFLAGS) $(CRC_DEF) $(ALL_CFLAGS) -Itests/unit $(UNIT_SRC) $(B)/librocelab.a -o $@ $(UNIT_WRAP) $(CUNIT_LIBS) $(CRC_LIBS) -lz

# The CLI under the sanitizers, for the bad-input tests.
$(B)/asan-isal/pcapgen/%.o: pcapgen/%.c $(wildcard pcapgen/*.h core/include/rocelab/*.h) | $(B)/asan-isal/pcapgen
	$(CC) $(CPPFLAGS) $(WARN) -O1 -g $(SAN) -Ipcapgen -c $< -o $@
$(B)/rocelab-asan: $(CLI_SRC) $(wildcard cli/*.h pcapgen/*.h) $(B)/gen/report_assets.h $(call pcapgen_objs,$(B)/asan-isal) $(call core_objs,$(B)/asan-isal)
	$(CC) $(CPPFLAGS) $(WARN) -O1 -g $(SAN) -Icli -I$(B)/gen -Ipcapgen $(CLI_SRC) $(call pcapgen_objs,$(B)/asan-isal) $(call core_objs,$(B)/asan-isal) -o $@ $(PCAP_LIBS) -lisal -lm -pthread

$(B) $(B)/core $(B)/pcapgen $(B)/asan-isal/core $(B)/asan-isal/pcapgen $(B)/asan-zlib/core $(B)/fuzz:
	mkdir -p $@

# ---- user-facing targets --------------------------------------------------
demo: bootstrap all
	@sh scripts/demo.sh $(B)/rocelab

unit: $(B)/unit $(B)/unit-asan-isal $(B)/unit-asan-zlib
	$(B)/unit
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(B)/unit-asan-isal
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(B)/unit-asan-zlib

# The whole tree again under clang with the same -Werror (CI builds with gcc and clang), and its unit
# tests plain and under ASan/UBSan; the CLI's tests with clang's binary too.
clang-test:
	$(MAKE) B=$(B)-clang CC=clang all $(B)-clang/unit $(B)-clang/unit-asan-isal $(B)-clang/rocelab-asan
	$(B)-clang/unit
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(B)-clang/unit-asan-isal
	sh tests/cli/run.sh $(B)-clang/rocelab $(B)-clang/rocelab-asan

# rocelab again with the analyzer's reference lookup (RL_ANALYZER_SCAN_LOOKUP: every flow scanned, no
# hash tables), in its own tree $(B)/scan: tests/scenarios and bench part 8 check that explain says the same.
scan-lookup:
	$(MAKE) B=$(B)/scan CFLAGS="$(CFLAGS) -DRL_ANALYZER_SCAN_LOOKUP" $(B)/scan/rocelab

cli-test: all $(B)/rocelab-asan
	sh tests/cli/run.sh $(B)/rocelab $(B)/rocelab-asan

# Every rocelab command line in README.md and the lab guides goes through the parser (ROCELAB_DRY_PARSE).
docs-test: all
	/usr/bin/python3 tests/docs/commands.py $(B)/rocelab

oracle: all
	sh tests/oracle/run.sh $(B)/rocelab

# rocelab report's page in headless Chromium, against tshark (REPORT_BIG=0: without the million-frame page)
report-test: all
	sh tests/report/run.sh $(B)/rocelab

scenarios: all scan-lookup
	sh tests/scenarios/run.sh $(B)/rocelab $(B)/scan/rocelab

# The coding exercises' checkers compare the learner's code with the core's.
GRADE_LIBS = $(abspath $(B))/librocelab.a $(CRC_LIBS) -lz

grade: all
	@GRADE_LIBS="$(GRADE_LIBS)" sh scripts/grade.sh $(B)/rocelab

# The learners' copy of the labs: guides, lab.def, blank answers, exercises and their checkers, and
# a Makefile whose `make grade` uses the installed rocelab; no lab's solution/ (the teacher's).
handout:
	sh scripts/handout.sh $(B)

lab-test: all plugin $(B)/rocelab-asan
	GRADE_LIBS="$(GRADE_LIBS)" sh tests/labs/run.sh $(B)/rocelab $(B)/plugin/rocelab.so
	GRADE_LIBS="$(GRADE_LIBS)" sh tests/labs/run.sh $(B)/rocelab-asan $(B)/plugin/rocelab.so
	sh tests/labs/switch16.sh $(B)/rocelab

# rocelab peer between two namespaces; again under ASan+UBSan.
peer-test: all $(B)/rocelab-asan
	sh tests/peer/run.sh $(B)/rocelab
	sh tests/peer/run.sh $(B)/rocelab-asan

# rocelab switch in a router namespace between three (issue 23): ARP, ECN marks, tail drops; the tbf baseline.
switch-test: all
	sh tests/switch/run.sh $(B)/rocelab

# rocelab peer against a hostile network (issue 22): broken exchanges, forged frames; ~20 s.
hostile-test: all
	sh tests/hostile/run.sh $(B)/rocelab

# Interop with the real kernel Soft-RoCE in a VM (realrxe/): the first run downloads Debian's packages.
realrxe-test: all
	bash tests/realrxe/run.sh $(B)/rocelab

# Every make below (and tests/install's) builds with -Werror.
test: export WERROR := 1
test: bootstrap
	$(MAKE) all
	sh tests/layers/run.sh
	$(MAKE) unit
	$(MAKE) cli-test
	$(MAKE) docs-test
	$(MAKE) clang-test
	$(MAKE) plugin-test
	$(MAKE) mutate
	$(MAKE) plugin-compat
	$(MAKE) oracle
	$(MAKE) report-test
	$(MAKE) scenarios
	sh tests/replay/run.sh $(B)/rocelab
	$(MAKE) peer-test
	$(MAKE) switch-test
	$(MAKE) hostile-test
	$(MAKE) lab-test
	$(MAKE) realrxe-test
	sh tests/install/run.sh
	sh tests/bootstrap/run.sh
	@echo "make test: all suites passed"

# libFuzzer needs clang.
$(B)/fuzz/decode: tests/fuzz/fuzz_decode.c $(wildcard tests/fuzz/*.h) $(CORE_SRC) | $(B)/fuzz
	clang $(CPPFLAGS) -DRL_CRC_ISAL $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined -Icore/src -Itests/fuzz tests/fuzz/fuzz_decode.c $(CORE_SRC) -o $@ -lisal

$(B)/fuzz/cm: tests/fuzz/fuzz_cm.c $(wildcard tests/fuzz/*.h) $(CORE_SRC) | $(B)/fuzz
	clang $(CPPFLAGS) -DRL_CRC_ISAL $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined -Icore/src -Itests/fuzz tests/fuzz/fuzz_cm.c $(CORE_SRC) -o $@ -lisal

# The short mutation run: explain and the plugin under ASan on every gen scenario, mutated (< 1 min).
mutate: all $(B)/rocelab-asan plugin-asan
	sh tests/fuzz/mutate.sh $(B)/rocelab-asan $(B)/plugin-asan/rocelab.so

fuzz: bootstrap all $(B)/fuzz/decode $(B)/fuzz/cm
	sh tests/fuzz/run.sh $(B)/rocelab $(B)/fuzz/decode $(FUZZ_SECONDS)
	sh tests/fuzz/run.sh $(B)/rocelab $(B)/fuzz/cm $(FUZZ_SECONDS) cm

$(B)/bench/decode: bench/bench_decode.c bench/bench.h $(B)/librocelab.a | $(B)
	mkdir -p $(B)/bench
	$(CC) $(CPPFLAGS) -DRL_CRC_ISAL $(ALL_CFLAGS) bench/bench_decode.c $(B)/librocelab.a -o $@ -lisal -lz

$(B)/bench/transport: bench/bench_transport.c bench/bench.h $(B)/librocelab.a | $(B)
	mkdir -p $(B)/bench
	$(CC) $(CPPFLAGS) -DRL_CRC_ISAL $(ALL_CFLAGS) bench/bench_transport.c $(B)/librocelab.a -o $@ -lisal -lz

$(B)/bench/udp_peer: bench/udp_peer.c | $(B)
	mkdir -p $(B)/bench
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) bench/udp_peer.c -o $@

bench: bootstrap all scan-lookup plugin $(B)/bench/decode $(B)/bench/transport $(B)/bench/udp_peer
	sh bench/run.sh $(B)

# The man pages, from the binary's --help (help2man): rocelab(1) and one rocelab-CMD(1) per subcommand.
man: $(B)/man/rocelab.1
$(B)/man/rocelab.1: $(B)/rocelab scripts/man.sh
	sh scripts/man.sh $(B)/rocelab $(B)/man

# Without help2man (make demo does not install it) everything but the man pages is installed, and it says so.
install: all
	@if command -v help2man >/dev/null 2>&1; then $(MAKE) --no-print-directory man; \
	else echo "make install: no man pages without help2man (apt-get install help2man, or make bootstrap)"; fi
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/rocelab
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	if [ -e $(B)/man/rocelab.1 ]; then install -m 644 $(B)/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/; fi
	install -m 644 scripts/rocelab.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/rocelab
	install -m 755 $(B)/rocelab $(DESTDIR)$(PREFIX)/bin/rocelab
	install -m 644 $(B)/librocelab.a $(DESTDIR)$(PREFIX)/lib/librocelab.a
	install -m 644 core/include/rocelab/*.h $(DESTDIR)$(PREFIX)/include/rocelab/
	install -d $(DESTDIR)$(PREFIX)/share/rocelab/realrxe
	install -m 644 realrxe/realrxe.sh realrxe/guest-init.sh realrxe/rxe_peer.c $(DESTDIR)$(PREFIX)/share/rocelab/realrxe/
	# the guides' figures, where they point (../../docs/figures from a lab's folder)
	install -d $(DESTDIR)$(PREFIX)/share/rocelab/docs/figures
	install -m 644 docs/figures/*.svg $(DESTDIR)$(PREFIX)/share/rocelab/docs/figures/
	install -d $(DESTDIR)$(PREFIX)/share/rocelab/docs/figures/ladder
	install -m 644 docs/figures/ladder/*.svg $(DESTDIR)$(PREFIX)/share/rocelab/docs/figures/ladder/
	install -d $(DESTDIR)$(PREFIX)/share/rocelab/docs/figures/report
	install -m 644 docs/figures/report/*.png $(DESTDIR)$(PREFIX)/share/rocelab/docs/figures/report/
	# each lab's definition (rocelab lab reads it), guides and blank answers file
	for d in labs/[0-9][0-9]-*; do \
		install -d $(DESTDIR)$(PREFIX)/share/rocelab/$$d && \
		install -m 644 $$d/lab.def $$d/README.md $$d/README.zh-CN.md $$d/answers.txt \
			$(DESTDIR)$(PREFIX)/share/rocelab/$$d/ || exit 1; \
	done
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@CRC_LIBS@|$(CRC_LIBS)|g' core/rocelab.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/rocelab.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/rocelab $(DESTDIR)$(PREFIX)/lib/librocelab.a \
	      $(DESTDIR)$(PREFIX)/lib/pkgconfig/rocelab.pc $(DESTDIR)$(PREFIX)/share/man/man1/rocelab.1 \
	      $(DESTDIR)$(PREFIX)/share/man/man1/rocelab-*.1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions/rocelab
	rm -rf $(DESTDIR)$(PREFIX)/include/rocelab $(DESTDIR)$(PREFIX)/share/rocelab/realrxe \
	       $(DESTDIR)$(PREFIX)/share/rocelab/labs $(DESTDIR)$(PREFIX)/share/rocelab/docs

clean:
	rm -rf $(B) $(B)-clang labs/out

include mk/plugin.mk
