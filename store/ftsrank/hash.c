// ctxhash(text), the key of the index of references by name (refs_name,
// docs/decisions/0132): FNV-1a of the text's UTF-8 bytes folded to 23
// bits, which SQLite stores in three bytes where the name took thirteen on
// average. Lookups compare the names too, so collisions cost only reads.

#include "fts5abi.h"

#define CTX_HASH_BITS 23

static void ctxhash(sqlite3_context *ctx, int nVal, sqlite3_value **apVal) {
	(void)nVal;
	const unsigned char *s = sqlite3_value_text(apVal[0]);
	int n = sqlite3_value_bytes(apVal[0]);
	unsigned int h = 2166136261u;
	for (int i = 0; s && i < n; i++) {
		h ^= s[i];
		h *= 16777619u;
	}
	h = (h ^ (h >> CTX_HASH_BITS)) & ((1u << CTX_HASH_BITS) - 1);
	sqlite3_result_int(ctx, (int)h);
}

// ctxRegisterHash adds ctxhash to a connection. Deterministic and
// innocuous, it may be used in an index's expression.
int ctxRegisterHash(sqlite3 *db) {
	return sqlite3_create_function_v2(db, "ctxhash", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, 0,
		ctxhash, 0, 0, 0);
}
