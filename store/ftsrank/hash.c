// Hashes that key two indexes of names (docs/decisions/0132): FNV-1a
// folded to 23 bits, which SQLite stores in three bytes where a name took
// thirteen or more. Lookups compare the names too, so a collision costs
// only a read.
//
// ctxhash(text) hashes the text's UTF-8 bytes: the references by name
// (refs_name). ctxnamekey(text) hashes the part before the first dot
// (the whole text when it starts with one or has none), ASCII letters
// folded to lower case as COLLATE NOCASE folds them: the entities by name
// (entities_name), found by a name compared without case ("Server") or,
// for files, by a name or by a stem and any extension ("base" for
// base.go, base.test.go).

#include "fts5abi.h"

#define CTX_HASH_BITS 23

static int fnv23(const unsigned char *s, int n, int fold) {
	unsigned int h = 2166136261u;
	for (int i = 0; s && i < n; i++) {
		unsigned char c = s[i];
		if (fold && c >= 'A' && c <= 'Z') c += 'a' - 'A';
		h ^= c;
		h *= 16777619u;
	}
	return (int)((h ^ (h >> CTX_HASH_BITS)) & ((1u << CTX_HASH_BITS) - 1));
}

static void ctxhash(sqlite3_context *ctx, int nVal, sqlite3_value **apVal) {
	(void)nVal;
	const unsigned char *s = sqlite3_value_text(apVal[0]);
	sqlite3_result_int(ctx, fnv23(s, sqlite3_value_bytes(apVal[0]), 0));
}

static void ctxnamekey(sqlite3_context *ctx, int nVal, sqlite3_value **apVal) {
	(void)nVal;
	const unsigned char *s = sqlite3_value_text(apVal[0]);
	int n = sqlite3_value_bytes(apVal[0]);
	for (int i = 1; s && i < n; i++) {
		if (s[i] == '.') {
			n = i;
			break;
		}
	}
	sqlite3_result_int(ctx, fnv23(s, n, 1));
}

// ctxRegisterHash adds ctxhash and ctxnamekey to a connection.
// Deterministic and innocuous, they may be used in an index's expression.
int ctxRegisterHash(sqlite3 *db) {
	int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
	int rc = sqlite3_create_function_v2(db, "ctxhash", 1, flags, 0, ctxhash, 0, 0, 0);
	if (rc != SQLITE_OK) return rc;
	return sqlite3_create_function_v2(db, "ctxnamekey", 1, flags, 0, ctxnamekey, 0, 0, 0);
}
