/* fuzz_compile.c: aijail-compile's front and middle end on arbitrary bytes.
 *
 * Built as a libFuzzer target by build.sh, or with -DAJ_FUZZ_MAIN as a plain
 * program that replays files (make check runs it over the policy corpus
 * under AddressSanitizer, so the harness itself never rots). */
#include "diag.h"
#include "model.h"
#include "source.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	diag_set_stream(devnull);
	static const char *dirs[] = {"policies"};
	struct program prog;
	load_init(&prog, dirs, 1);
	/* What a file on disk meets first (compiler/source.c); the parser still gets
	 * every input, text or not. */
	struct src_fault fault;
	source_text_fault((const char *)data, size, &fault);
	const struct src *src = diag_src_new("fuzz.aj", (const char *)data, size);
	if (load_program(&prog, "fuzz.aj", src) && load_resolve(&prog) && prog.last_in_main) {
		struct compiled c;
		if (compile_policy(&prog, prog.last_in_main, &c) && devnull)
			emit_header(devnull, &c, "fuzz.aj");
	}
	ast_arena_free();
	diag_reset();
	return 0;
}

#ifdef AJ_FUZZ_MAIN
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 1;
		}
		static uint8_t buf[1 << 20];
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("fuzz replay: %d inputs, no crash\n", argc - 1);
	return 0;
}
#endif
