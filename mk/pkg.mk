# mk/pkg.mk: install and uninstall, the Debian packages (make deb), the
# static release archive (make dist) and the wheel (make wheel), with the
# checks of the last two.

# The man pages and the Python package are installed when they exist.
MAN1     := $(wildcard docs/man/*.1)
MAN5     := $(wildcard docs/man/*.5)
PY_FILES := $(patsubst python/%,%,$(shell test -d python/aijail && \
	find python/aijail -type f ! -path '*/__pycache__/*' ! -name '*.pyc' | LC_ALL=C sort))
I_LIB    := $(DESTDIR)$(PREFIX)/lib/aijail
I_SHARE  := $(DESTDIR)$(PREFIX)/share/aijail

install: all
	install -d $(DESTDIR)$(BINDIR) $(I_LIB)/include $(I_LIB)/stub $(I_SHARE)/policies
	install -m 0755 $(B)/bin/aijail-compile $(B)/bin/aijail-status $(B)/bin/aijail-keys $(STUBS) $(DESTDIR)$(BINDIR)/
	sed 's|@PYTHONDIR@|$(PYTHONDIR)|' tools/aijail-mcp >$(DESTDIR)$(BINDIR)/aijail-mcp
	chmod 0755 $(DESTDIR)$(BINDIR)/aijail-mcp
	install -m 0644 $(RT)/libaijail-stub.a $(RT)/stub.flags $(I_LIB)/
	install -m 0644 $(RT)/include/aj_table.h $(I_LIB)/include/
	install -m 0644 $(RT_STUB) $(I_LIB)/stub/
	install -m 0644 $(SHARE_FILES) $(I_SHARE)/policies/
	$(if $(MAN1),install -d $(DESTDIR)$(MANDIR)/man1 && install -m 0644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/)
	$(if $(MAN5),install -d $(DESTDIR)$(MANDIR)/man5 && install -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/)
	$(foreach f,$(PY_FILES),install -D -m 0644 python/$(f) $(DESTDIR)$(PYTHONDIR)/$(f) &&) true
	install -d $(I_SHARE)/apparmor
	contrib/apparmor/profile.sh $(BINDIR) $(STUBS:$(B)/bin/%=%) >$(I_SHARE)/apparmor/aijail

# What install put, and the folders that are aijail's own once empty
# (Python's __pycache__ beside the package: made by importing it).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/aijail-compile $(DESTDIR)$(BINDIR)/aijail-status $(DESTDIR)$(BINDIR)/aijail-keys $(DESTDIR)$(BINDIR)/aijail-mcp \
		$(STUBS:$(B)/bin/%=$(DESTDIR)$(BINDIR)/%)
	rm -f $(I_LIB)/libaijail-stub.a $(I_LIB)/stub.flags $(I_LIB)/include/aj_table.h \
		$(RT_STUB:$(RT)/%=$(I_LIB)/%) $(SHARE_FILES:$(B)/share/aijail/%=$(I_SHARE)/%) $(I_SHARE)/apparmor/aijail
	rm -f $(MAN1:docs/man/%=$(DESTDIR)$(MANDIR)/man1/%) $(MAN5:docs/man/%=$(DESTDIR)$(MANDIR)/man5/%)
	rm -f $(PY_FILES:%=$(DESTDIR)$(PYTHONDIR)/%)
	$(if $(PY_FILES),find $(DESTDIR)$(PYTHONDIR)/aijail -depth -name __pycache__ -type d \
		-exec rm -rf {} + 2>/dev/null; find $(DESTDIR)$(PYTHONDIR)/aijail -depth -type d \
		-empty -delete 2>/dev/null; true)
	rmdir $(I_LIB)/include $(I_LIB)/stub $(I_LIB) $(I_SHARE)/policies $(I_SHARE)/apparmor $(I_SHARE) 2>/dev/null || true

# --- the Debian packages, the release archive -----------------------------------

# dpkg-buildpackage in a copy of the sources (what git tracks, and new
# files it does not ignore; everything but build/ outside git), so that
# the user's build/ never ends up in a package; the packages land in
# build/deb, lintian fails it on an error.  Mbed TLS's tarball
# (mk/keys.mk, aijail-keys) is fetched here, once, and put in the copy's
# third/ (its clean empties build/), so that the package's own build
# needs no network: offline, put it in third/ by hand (docs/install.md).
DEB_DIR  := $(B)/deb
# dpkg-buildpackage runs make -j1 unless told: two jobs, as make -j2.
DEB_JOBS ?= 2
deb: $(MBED_TGZ)
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z -co --exclude-standard | tar --null -T - -cf - | tar -xf - -C $(DEB_DIR)/src; \
	else \
		tar --exclude=./$(B) -cf - . | tar -xf - -C $(DEB_DIR)/src; \
	fi
	mkdir -p $(DEB_DIR)/src/third && cp $(MBED_TGZ) $(DEB_DIR)/src/third/
	cd $(DEB_DIR)/src && dpkg-buildpackage -us -uc -b -J$(DEB_JOBS)
	rm -rf $(DEB_DIR)/src
	@if command -v lintian >/dev/null; then \
		lintian --fail-on error $(DEB_DIR)/*.changes; \
	else \
		echo "make deb: no lintian (make deps-pkg installs it): the packages are unchecked"; \
	fi
	@ls -1 $(DEB_DIR)/*.deb

# The static release archive: the stubs and aijail-status of one
# architecture's build (build/, or build-aarch64/ that make ARCH=aarch64
# builds), the policies, the man pages, into build/dist whatever ARCH;
# reproducible: every time, every owner and every order fixed, the time
# the last commit's.
DIST_B   := $(if $(filter x86_64,$(ARCH)),build,build-$(ARCH))
DIST_D   := build/dist
DIST_N   := aijail-$(AIJAIL_VERSION)-$(ARCH)-linux
DIST_TGZ := $(DIST_D)/$(DIST_N).tar.gz
DIST_BIN := $(foreach p,$(POLICIES),$(DIST_B)/bin/$(call stub_name,$(p))) $(DIST_B)/bin/aijail-status \
	$(DIST_B)/bin/aijail-keys
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
dist:
	@for f in $(DIST_BIN); do [ -x $$f ] || { \
		echo "make dist: $$f is missing: build $(ARCH) first (make$(if $(filter x86_64,$(ARCH)),, ARCH=$(ARCH)))"; exit 1; }; done
	rm -rf $(DIST_D)/$(DIST_N) && mkdir -p $(DIST_D)/$(DIST_N)/bin $(DIST_D)/$(DIST_N)/share/aijail/policies \
		$(DIST_D)/$(DIST_N)/share/man/man1 $(DIST_D)/$(DIST_N)/share/man/man5
	install -m 0755 $(DIST_BIN) $(DIST_D)/$(DIST_N)/bin/
	install -m 0644 policies/*.aj $(DIST_D)/$(DIST_N)/share/aijail/policies/
	mkdir -p $(DIST_D)/$(DIST_N)/share/aijail/apparmor
	contrib/apparmor/profile.sh /usr/local/bin $(notdir $(filter-out %/aijail-status %/aijail-keys,$(DIST_BIN))) \
		>$(DIST_D)/$(DIST_N)/share/aijail/apparmor/aijail
	install -m 0644 $(MAN1) $(DIST_D)/$(DIST_N)/share/man/man1/
	install -m 0644 $(MAN5) $(DIST_D)/$(DIST_N)/share/man/man5/
	install -m 0644 LICENSE $(DIST_D)/$(DIST_N)/
	install -m 0644 $(DIST_B)/third/mbedtls/LICENSE $(DIST_D)/$(DIST_N)/LICENSE.mbedtls
	sed 's/@VERSION@/$(AIJAIL_VERSION)/g; s/@ARCH@/$(ARCH)/g' tools/INSTALL.dist >$(DIST_D)/$(DIST_N)/INSTALL
	cd $(DIST_D)/$(DIST_N) && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' | \
		xargs sha256sum >SHA256SUMS
	chmod -R u=rwX,go=rX $(DIST_D)/$(DIST_N)
	tar --sort=name --mtime=@$(SOURCE_DATE_EPOCH) --owner=0 --group=0 --numeric-owner \
		-C $(DIST_D) -cf - $(DIST_N) | gzip -9n >$(DIST_TGZ).tmp
	mv $(DIST_TGZ).tmp $(DIST_TGZ)
	rm -rf $(DIST_D)/$(DIST_N)
	cd $(DIST_D) && sha256sum $(DIST_N).tar.gz >$(DIST_N).tar.gz.sha256
	@cat $(DIST_TGZ).sha256

# The wheel: the Python package, aijail-mcp as its console script, and
# the static stubs, aijail-status and aijail-keys (which a stub finds
# beside itself, docs/keys.md) as scripts that pip or uv copy into
# the environment's bin/, where the package finds them (RECORD); tagged
# for any glibc or musl Linux of ARCH (tools/wheel.py says why).  Not
# aijail-compile: it links glibc and libseccomp dynamically, and its
# --build runtime is GCC link-time code that only the gcc that wrote it
# reads (the Debian package's aijail-dev is built per release for that).
# Written by tools/wheel.py with the standard library only, no PyPI; as
# reproducible as make dist (the last commit's time, fixed modes, order).
WHEEL_D   := build/wheel
WHEEL_BIN := $(STUBS) $(B)/bin/aijail-status $(B)/bin/aijail-keys
wheel: $(WHEEL_BIN)
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(PYTHON) tools/wheel.py --version $(AIJAIL_VERSION) \
		--arch $(ARCH) --out $(WHEEL_D) --python python --readme python/README.md --license LICENSE \
		$(WHEEL_BIN)

# make wheel twice gives the same bytes; installed with pip into fresh
# virtual environments (as the test user, and as root), offline, the
# stubs run from the venv's bin/ and the package and aijail-mcp find them.
wheel-check: all
	tests/wheel/run.sh

# make dist twice gives the same bytes; SHA256SUMS inside holds; the
# archive's jail-worker runs a command as the test user.
dist-check: all
	tests/dist/run.sh
