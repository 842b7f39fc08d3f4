// The part of SQLite's C interface that rank.c, hash.c and ftsrank.go use: the
// functions are those of the SQLite that github.com/mattn/go-sqlite3
// compiles into the binary (the linker resolves them there), the structures the prefix of
// FTS5's extension interface (sqlite.org/fts5.html#custom_auxiliary_functions)
// up to the members rank.c reads. SQLite only appends to these structures.

#ifndef CTXLS_FTS5ABI_H
#define CTXLS_FTS5ABI_H

typedef long long sqlite3_int64;
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef struct sqlite3_context sqlite3_context;
typedef struct sqlite3_value sqlite3_value;

#define SQLITE_OK 0
#define SQLITE_ERROR 1
#define SQLITE_NOMEM 7
#define SQLITE_UTF8 1
#define SQLITE_DETERMINISTIC 0x000000800
#define SQLITE_INNOCUOUS 0x000200000

extern int sqlite3_prepare_v2(sqlite3 *db, const char *zSql, int nByte, sqlite3_stmt **ppStmt, const char **pzTail);
extern int sqlite3_bind_pointer(sqlite3_stmt *stmt, int i, void *p, const char *type, void (*xDestructor)(void *));
extern int sqlite3_step(sqlite3_stmt *stmt);
extern int sqlite3_finalize(sqlite3_stmt *stmt);
extern const char *sqlite3_errstr(int rc);
extern const char *sqlite3_errmsg(sqlite3 *db);
extern double sqlite3_value_double(sqlite3_value *v);
extern void sqlite3_result_double(sqlite3_context *ctx, double v);
extern void sqlite3_result_error_code(sqlite3_context *ctx, int code);
extern const unsigned char *sqlite3_value_text(sqlite3_value *v);
extern int sqlite3_value_bytes(sqlite3_value *v);
extern void sqlite3_result_int(sqlite3_context *ctx, int v);
extern int sqlite3_create_function_v2(sqlite3 *db, const char *zFunctionName, int nArg, int eTextRep, void *pApp,
	void (*xFunc)(sqlite3_context *, int, sqlite3_value **), void (*xStep)(sqlite3_context *, int, sqlite3_value **),
	void (*xFinal)(sqlite3_context *), void (*xDestroy)(void *));

typedef struct Fts5Context Fts5Context;
typedef struct Fts5PhraseIter {
	const unsigned char *a;
	const unsigned char *b;
} Fts5PhraseIter;

typedef struct Fts5ExtensionApi Fts5ExtensionApi;
struct Fts5ExtensionApi {
	int iVersion;
	void *(*xUserData)(Fts5Context *);
	int (*xColumnCount)(Fts5Context *);
	int (*xRowCount)(Fts5Context *, sqlite3_int64 *pnRow);
	int (*xColumnTotalSize)(Fts5Context *, int iCol, sqlite3_int64 *pnToken);
	int (*xTokenize)(Fts5Context *, const char *pText, int nText, void *pCtx,
	                 int (*xToken)(void *, int, const char *, int, int, int));
	int (*xPhraseCount)(Fts5Context *);
	int (*xPhraseSize)(Fts5Context *, int iPhrase);
	int (*xInstCount)(Fts5Context *, int *pnInst);
	int (*xInst)(Fts5Context *, int iIdx, int *piPhrase, int *piCol, int *piOff);
	sqlite3_int64 (*xRowid)(Fts5Context *);
	int (*xColumnText)(Fts5Context *, int iCol, const char **pz, int *pn);
	int (*xColumnSize)(Fts5Context *, int iCol, int *pnToken);
	int (*xQueryPhrase)(Fts5Context *, int iPhrase, void *pUserData,
	                    int (*)(const Fts5ExtensionApi *, Fts5Context *, void *));
	int (*xSetAuxdata)(Fts5Context *, void *pAux, void (*xDelete)(void *));
	void *(*xGetAuxdata)(Fts5Context *, int bClear);
	int (*xPhraseFirst)(Fts5Context *, int iPhrase, Fts5PhraseIter *, int *, int *);
	void (*xPhraseNext)(Fts5Context *, Fts5PhraseIter *, int *piCol, int *piOff);
	int (*xPhraseFirstColumn)(Fts5Context *, int iPhrase, Fts5PhraseIter *, int *);
	void (*xPhraseNextColumn)(Fts5Context *, Fts5PhraseIter *, int *piCol);
};

typedef void (*fts5_extension_function)(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx,
                                        int nVal, sqlite3_value **apVal);

typedef struct fts5_api fts5_api;
struct fts5_api {
	int iVersion;
	int (*xCreateTokenizer)(fts5_api *, const char *, void *, void *, void (*)(void *));
	int (*xFindTokenizer)(fts5_api *, const char *, void **, void *);
	int (*xCreateFunction)(fts5_api *pApi, const char *zName, void *pUserData, fts5_extension_function xFunction,
	                       void (*xDestroy)(void *));
};

#endif
