# The Wireshark plugin (dissector/): included by the top-level Makefile.
# Uses B, CC, CPPFLAGS, WARN, SAN, CORE_SRC, CRC, CRC_DEF and CRC_LIBS from it.
#
#   make plugin          build/plugin/rocelab.so (core compiled -fPIC into it)
#   make plugin-asan     build/plugin-asan/rocelab.so, under ASan and UBSan, for tests/plugin
#   make install-plugin  your personal plugin folder; as root, Wireshark's system folder
#                        (PLUGIN_DIR=... puts it elsewhere; DESTDIR is honoured)
#   make plugin-test     tests/plugin/run.sh
#   make plugin-compat   compile (not link) the plugin against Wireshark 4.2's and 4.4's headers,
#                        fetched once into build/ws-compat (tests/plugin/compat.sh; needs the network once)

WS_CFLAGS = $(shell pkg-config --cflags wireshark 2>/dev/null)
WS_LIBS = $(shell pkg-config --libs wireshark 2>/dev/null)
# "4.0": plugins live in a folder named after Wireshark's major.minor version.
WS_MAJMIN = $(shell pkg-config --modversion wireshark 2>/dev/null | cut -d. -f1,2)
WS_PLUGINDIR = $(shell pkg-config --variable=plugindir wireshark 2>/dev/null)

PLUGIN_SRC := $(wildcard dissector/*.c)
PLUGIN_DEPS := $(PLUGIN_SRC) $(wildcard dissector/*.h core/include/rocelab/*.h)
# Core inside a plugin: position-independent, and hidden, so that the plugin
# exports only what Wireshark looks for (plugin_version, plugin_register, ...).
PIC_CFLAGS := -fPIC -fvisibility=hidden
pic_objs = $(patsubst core/src/%.c,$(1)/%.o,$(CORE_SRC))

.PHONY: plugin plugin-asan install-plugin uninstall-plugin plugin-test plugin-compat

plugin: $(B)/plugin/rocelab.so
plugin-asan: $(B)/plugin-asan/rocelab.so

$(B)/pic/core $(B)/pic-asan/core $(B)/plugin $(B)/plugin-asan:
	mkdir -p $@

$(B)/pic/core/%.o: core/src/%.c $(wildcard core/include/rocelab/*.h core/src/*.h) | $(B)/pic/core
	$(CC) $(CPPFLAGS) $(CRC_DEF) $(WARN) -O2 -g $(PIC_CFLAGS) -Icore/src -c $< -o $@
$(B)/pic-asan/core/%.o: core/src/%.c $(wildcard core/include/rocelab/*.h core/src/*.h) | $(B)/pic-asan/core
	$(CC) $(CPPFLAGS) $(CRC_DEF) $(WARN) -O1 -g $(SAN) $(PIC_CFLAGS) -Icore/src -c $< -o $@
# Switching CRC= rebuilds the one object that depends on it (the stamp rule is the Makefile's).
$(B)/pic/core/crc32.o $(B)/pic-asan/core/crc32.o: $(B)/crc-$(CRC).stamp

# -Wl,-z,defs: an unresolved symbol is a link error here, not a failure to load in Wireshark.
$(B)/plugin/rocelab.so: $(PLUGIN_DEPS) $(call pic_objs,$(B)/pic/core) | $(B)/plugin
	@pkg-config --exists wireshark || { echo "plugin: needs wireshark-dev (apt-get install wireshark-dev), or run make bootstrap" >&2; exit 1; }
	$(CC) $(CPPFLAGS) $(WARN) -O2 -g $(PIC_CFLAGS) $(WS_CFLAGS) -shared -Wl,-z,defs \
		$(PLUGIN_SRC) $(call pic_objs,$(B)/pic/core) -o $@ $(WS_LIBS) $(CRC_LIBS)

$(B)/plugin-asan/rocelab.so: $(PLUGIN_DEPS) $(call pic_objs,$(B)/pic-asan/core) | $(B)/plugin-asan
	@pkg-config --exists wireshark || { echo "plugin: needs wireshark-dev (apt-get install wireshark-dev), or run make bootstrap" >&2; exit 1; }
	$(CC) $(CPPFLAGS) $(WARN) -O1 -g $(SAN) $(PIC_CFLAGS) $(WS_CFLAGS) -shared -Wl,-z,defs \
		$(PLUGIN_SRC) $(call pic_objs,$(B)/pic-asan/core) -o $@ $(WS_LIBS) $(CRC_LIBS)

# Wireshark ignores personal plugins when run as root, so root gets the system folder.
install-plugin: $(B)/plugin/rocelab.so
	@dir='$(PLUGIN_DIR)'; \
	if [ -z "$$dir" ]; then \
		if [ "$$(id -u)" -eq 0 ] && [ -n '$(WS_PLUGINDIR)' ]; then dir='$(WS_PLUGINDIR)/epan'; \
		else dir="$$HOME/.local/lib/wireshark/plugins/$(WS_MAJMIN)/epan"; fi; \
	fi; \
	install -d "$(DESTDIR)$$dir" && install -m 644 $(B)/plugin/rocelab.so "$(DESTDIR)$$dir/rocelab.so" && \
	echo "install-plugin: $(DESTDIR)$$dir/rocelab.so (check: tshark -G plugins | grep rocelab)"

uninstall-plugin:
	@dir='$(PLUGIN_DIR)'; \
	if [ -z "$$dir" ]; then \
		if [ "$$(id -u)" -eq 0 ] && [ -n '$(WS_PLUGINDIR)' ]; then dir='$(WS_PLUGINDIR)/epan'; \
		else dir="$$HOME/.local/lib/wireshark/plugins/$(WS_MAJMIN)/epan"; fi; \
	fi; \
	rm -f "$(DESTDIR)$$dir/rocelab.so"

plugin-test: $(B)/rocelab $(B)/plugin/rocelab.so $(B)/plugin-asan/rocelab.so
	sh tests/plugin/run.sh $(B)/plugin/rocelab.so $(B)/rocelab $(B)/plugin-asan/rocelab.so

# Only the installed Wireshark (Debian 12: 4.0) is linked and run; newer ones are compiled against.
plugin-compat:
	CC="$(CC)" RL_CFLAGS="$(CPPFLAGS) $(WARN)" sh tests/plugin/compat.sh $(B)/ws-compat
