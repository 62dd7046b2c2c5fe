/* compiler/test_identity.c: SHA-256 against the published vectors, and the
 * policy identity: the hash of the header's tables, written into the
 * header, the same whatever file name the policy came from, different
 * when a table differs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "compile_fixture.h"
#include "sha256.h"

#include <seccomp.h>

static char *hex(const void *data, size_t n)
{
	uint8_t h[SHA256_LEN];
	static char out[2 * SHA256_LEN + 1];
	sha256(data, n, h);
	for (int i = 0; i < SHA256_LEN; i++)
		sprintf(out + 2 * i, "%02x", h[i]);
	return out;
}

static void sha256_vectors(void **state)
{
	(void)state;
	assert_string_equal(hex("", 0),
	                    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	assert_string_equal(hex("abc", 3),
	                    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* 56 bytes: the length no longer fits the first block. */
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	assert_string_equal(hex(two, strlen(two)),
	                    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	static char million[1000000];
	memset(million, 'a', sizeof(million));
	assert_string_equal(hex(million, sizeof(million)),
	                    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static char *header(const struct compiled *c, const char *source)
{
	/* Static: open_memstream keeps their addresses until fclose. */
	static char *text;
	static size_t len;
	text = NULL;
	FILE *f = open_memstream(&text, &len);
	assert_true(emit_header(f, c, source));
	fclose(f);
	return text;
}

static void identity_is_the_tables_hash(void **state)
{
	(void)state;
	struct compiled *c = compile_str("policy p { network none; rw $PROJECT; }");
	assert_non_null(c);
	char *id = emit_identity(c);
	char *h = header(c, "/some/where/t.aj");

	/* The hashed part: after the first comment, up to the identity. */
	const char *from = strstr(h, "*/\n");
	const char *to = strstr(h, "\t.identity = ");
	assert_non_null(from);
	assert_non_null(to);
	from += 3;
	const struct scmp_version *v = seccomp_version();
	char *want = ast_printf("sha256:%s (aijail-compile %s, libseccomp %u.%u.%u)",
	                        hex(from, (size_t)(to - from)), AIJAIL_VERSION, v->major, v->minor,
	                        v->micro);
	assert_string_equal(id, want);
	assert_non_null(strstr(to, ast_printf("\t.identity = \"%s\",\n};\n", id)));

	/* No folder in the header: only the file's name. */
	assert_null(strstr(h, "/some/where"));
	assert_non_null(strstr(h, " from t.aj: "));
	free(h);
}

static void identity_follows_the_tables(void **state)
{
	(void)state;
	char *a = ast_strdup(emit_identity(compile_str("policy p { network none; }")));
	char *b = emit_identity(compile_str("policy p { network host; }"));
	char *a2 = emit_identity(compile_str("# a comment changes no table\npolicy p {\n"
	                                     "    network none;\n}\n"));
	assert_string_not_equal(a, b);
	assert_string_equal(a, a2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sha256_vectors),
	    cmocka_unit_test_setup_teardown(identity_is_the_tables_hash, setup, teardown),
	    cmocka_unit_test_setup_teardown(identity_follows_the_tables, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
