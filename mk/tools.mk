# mk/tools.mk: the integrations (aijail-status, the Python package,
# aijail-mcp, the man pages) and their checks.

#
#   build/bin/aijail-status  what is in force, measured from inside a jail
#   python-check             tests/python: the aijail package, as the test user
#   status-check             tests/status: aijail-status inside and outside
#   orchestrator-check       tests/integration/orchestrator.sh: jail-worker as an argv prefix
#   man-check                every docs/man page through groff, warnings fail
#   build/bin/aijail-mcp     the MCP server (python/aijail/mcp.py, docs/mcp.md)
#   mcp-check                tests/mcp: aijail-mcp driven by the official MCP clients

all: $(B)/bin/aijail-status $(B)/bin/aijail-mcp

# The MCP server: Python, standard library only; it finds the package in the
# tree (build/bin/../../python) or where install put it.
$(B)/bin/aijail-mcp: tools/aijail-mcp $(wildcard python/aijail/*.py)
	@mkdir -p $(dir $@)
	sed 's|@PYTHONDIR@|$(abspath python)|' $< >$@.tmp && chmod 0755 $@.tmp && mv $@.tmp $@

STATUS_SRC := tools/main.c tools/status.c tools/watchers.c tools/doctor.c tools/doctor_judge.c \
	tools/doctor_print.c tools/doctor_probe.c
$(B)/bin/aijail-status: $(STATUS_SRC) tools/doctor.h tools/status.h include/aj_watchstate.h include/aj_owndir.h $(B)/kh/.stamp
	@mkdir -p $(dir $@)
	$(MUSLCC) -Os -std=gnu11 -D_GNU_SOURCE $(WARN) -Iinclude -isystem $(B)/kh -ffunction-sections -fdata-sections \
		-fno-asynchronous-unwind-tables -static -s -Wl,--gc-sections -o $@ $(STATUS_SRC)

MAN_PAGES := $(wildcard docs/man/*.1 docs/man/*.5)

# Both devices: man without a UTF-8 locale (a minbase machine, no LANG)
# formats for ASCII, where a character groff cannot map is a warning.
man-check:
	@fail=0; for m in $(MAN_PAGES); do \
		w=$$(groff -ww -man -Tutf8 -z $$m 2>&1; LC_ALL=C LANG= groff -ww -man -Tascii -z $$m 2>&1); \
		if [ -n "$$w" ]; then echo "FAIL $$m:"; echo "$$w"; fail=1; else echo "PASS $$m"; fi; \
	done; exit $$fail

status-check: $(B)/bin/aijail-status $(STUBS)
	tests/status/run.sh

python-check: $(B)/bin/aijail-status $(STUBS)
	tests/python/run.sh

orchestrator-check: $(STUBS)
	tests/integration/orchestrator.sh

# tests/mcp: aijail-mcp driven by the official MCP clients (npm packages
# for the tests only, pinned in tests/mcp/package.json, installed into
# $(B)/mcp-test, never globally).
mcp-deps:
	@mkdir -p $(B)/mcp-test
	cp tests/mcp/package.json $(B)/mcp-test/package.json
	cd $(B)/mcp-test && npm install --no-audit --no-fund --no-package-lock

mcp-check: $(B)/bin/aijail-mcp $(B)/bin/aijail-status $(STUBS)
	tests/mcp/run.sh

.PHONY: man-check status-check python-check orchestrator-check mcp-deps mcp-check
