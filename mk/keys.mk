# mk/keys.mk: aijail-keys, the process that adds a bound key (docs/keys.md),
# and its request parser's fuzz replay.

# Mbed TLS as Debian ships it (the orig tarball of bookworm's source
# package, checked against its .dsc's SHA-256), built with musl into
# $(B)/third; only aijail-keys links it, never a stub.
MBEDTLS_VER := 2.28.3
MBEDTLS_SHA := 3b4953aa55a681e084d31892d9904cc5328d6b4958ea57b90ae4b4f94ae69a8d
MBEDTLS_URL ?= http://deb.debian.org/debian/pool/main/m/mbedtls/mbedtls_$(MBEDTLS_VER).orig.tar.gz
MBED        := $(B)/third/mbedtls
MBED_LIBS   := $(MBED)/library/libmbedtls.a $(MBED)/library/libmbedx509.a $(MBED)/library/libmbedcrypto.a
KEYS_SRC    := keys/main.c keys/request.c keys/filter.c

MBED_TGZ    := $(B)/third/mbedtls_$(MBEDTLS_VER).orig.tar.gz
# A copy in the tree's third/ (outside build/, so make clean and a
# package build's clean keep it) is taken instead of the network: make
# deb puts one in its copy, and an offline build puts it there by hand
# (docs/install.md).  Checked the same way.
MBED_LOCAL  := third/mbedtls_$(MBEDTLS_VER).orig.tar.gz

$(MBED_TGZ):
	@mkdir -p $(dir $@)
	if [ -f $(MBED_LOCAL) ]; then cp $(MBED_LOCAL) $@.tmp; else curl -fsSL -o $@.tmp $(MBEDTLS_URL); fi
	echo '$(MBEDTLS_SHA)  $@.tmp' | sha256sum -c --quiet
	mv $@.tmp $@

# keys/mbedtls-ecdsa-sig-alg.patch: 2.28's x509write puts a NULL after
# ecdsa-with-SHA256 (inner, signed, and outer AlgorithmIdentifier), which
# RFC 5758 forbids and rustls/webpki clients (Codex, uv) refuse.  patch
# fails on a hunk that does not apply, so a changed tarball stops here.
$(MBED_LIBS) &: $(MBED_TGZ) keys/mbedtls_user.h keys/mbedtls-ecdsa-sig-alg.patch
	rm -rf $(MBED) && mkdir -p $(MBED)
	tar -xzf $< -C $(MBED) --strip-components=1
	patch -d $(MBED) -p1 --batch --forward --no-backup-if-mismatch -s < keys/mbedtls-ecdsa-sig-alg.patch
	$(MAKE) -C $(MBED)/library CC=$(MUSLCC) AR=ar \
		CFLAGS='-Os -ffunction-sections -fdata-sections -DMBEDTLS_USER_CONFIG_FILE=\"$(abspath keys/mbedtls_user.h)\"' \
		libmbedtls.a libmbedx509.a libmbedcrypto.a

$(B)/bin/aijail-keys: $(KEYS_SRC) keys/keys.h common/keys.h $(MBED_LIBS) $(B)/kh/.stamp
	@mkdir -p $(dir $@)
	$(MUSLCC) -Os -std=gnu11 -D_GNU_SOURCE $(WARN) -I. -I$(MBED)/include -isystem $(B)/kh \
		-DMBEDTLS_USER_CONFIG_FILE='"$(abspath keys/mbedtls_user.h)"' \
		-ffunction-sections -fdata-sections -static -s -Wl,--gc-sections -o $@ $(KEYS_SRC) $(MBED_LIBS)

all: $(B)/bin/aijail-keys

# aijail-keys's request parser, the same way (tests/fuzz/fuzz_keys_request.c).
$(B)/tests/fuzz_keys_replay: tests/fuzz/fuzz_keys_request.c keys/request.c keys/keys.h common/keys.h
	@mkdir -p $(dir $@)
	$(CC) -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -DAJ_FUZZ_MAIN \
		-std=gnu11 -D_GNU_SOURCE $(WARN) -I. -o $@ tests/fuzz/fuzz_keys_request.c keys/request.c
