/* fuzz_keys_request.c: aijail-keys's request parser (keys/request.c) on
 * arbitrary bytes, the jail's side of a bound connection.
 *
 * The first byte sets the size of the pieces the input is fed in (a head
 * may straddle any two reads); what comes out is checked: never larger
 * than the input grown by the values it may hold, and no byte of it once
 * the parser refused.  Built as a libFuzzer target by build.sh, or with
 * -DAJ_FUZZ_MAIN as a plain program that replays files (make fuzz-replay,
 * under AddressSanitizer, over tests/fuzz/keys/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct keys_bind bind = {
    .name = "TOKEN",
    .value = "real-value-1234",
    .placeholder = "aijail-secret-TOKEN-0123456789abcdef0123456789abcdef",
    .n_hosts = 1,
    .hosts = {"api.example.com:443"},
};
static struct keys_req q;
static size_t out_n;
static bool refused;

static bool sink(void *ctx, const char *b, size_t n)
{
	(void)ctx;
	(void)b;
	if (refused)
		abort(); /* bytes after a refusal */
	out_n += n;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t piece;

	if (!size)
		return 0;
	piece = (size_t)data[0] % 64 + 1;
	data++, size--;
	keys_req_init(&q, &bind, 1, "api.example.com:443");
	out_n = 0, refused = false;
	for (size_t at = 0; at < size && !refused; at += piece) {
		size_t n = size - at < piece ? size - at : piece;

		if (keys_req_feed(&q, (const char *)data + at, n, sink, NULL))
			refused = true;
	}
	/* Each placeholder (52 bytes) may become the value, in a Basic
	 * value too, where base64 grows it by a third: never more than
	 * twice the input and a head's own bytes. */
	if (out_n > 2 * size + KEYS_HEAD_MAX)
		abort();
	return 0;
}

#ifdef AJ_FUZZ_MAIN
int main(int argc, char **argv)
{
	static uint8_t buf[1 << 20];

	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		size_t n;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
	}
	return 0;
}
#endif
