/* parse.c: runs the flex scanner and the bison parser over one source. */
#include "parse.h"

#include "aj.tab.h"
#include "aj.lex.h"

struct stmt *parse_src(const struct src *src)
{
	struct parse_ctx ctx = {src, NULL, 0};
	struct lex_state st = {1, 1, &ctx};
	yyscan_t scanner;
	if (ajlex_init_extra(&st, &scanner) != 0) {
		diag_error("cannot start the scanner");
		return NULL;
	}
	YY_BUFFER_STATE buf = aj_scan_bytes(src->text, (int)src->len, scanner);
	ajparse(scanner, &ctx);
	aj_delete_buffer(buf, scanner);
	ajlex_destroy(scanner);
	return ctx.result;
}
