// The rank function of the code full-text tables (docs/decisions/0130,
// 0131):
// FTS5's bm25() over postings that record in which columns a document
// holds a term, not where (detail=column). bm25() reads a term's frequency
// in a column from its positions, which such postings do not keep; an
// entity document holds each term of a column about once (a body keeps
// its distinct terms), so here a column that holds the term counts once.
// Everything else is bm25()'s: k1 1.2, b 0.75, the IDF
// log((N - n + 0.5) / (n + 0.5)) floored at 1e-6, the document length of
// all its columns against the table's average, and the columns' weights
// as arguments (1 where one is missing).
//
// ctxrank(w_0, …, w_{n-1}, m_0, …, m_{n-1}), with a multiplicity m_i
// after the n weights, counts a document's length as the sum of m_i times
// the size of column i, and the average likewise: a frequency column for
// bit k of a field holds each of its terms once for 2^k occurrences
// (docs/decisions/0131), so its tokens count 2^k times.

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fts5abi.h"

#define CTX_K1 1.2
#define CTX_B 0.75

// What a query's rows share: the IDF of each phrase and the average
// document length, computed for the first row and kept as aux data.
typedef struct {
	int nPhrase;
	double avgdl;
	double *idf;
} rankData;

static void rankDataFree(void *p) {
	rankData *d = (rankData *)p;
	if (d) {
		free(d->idf);
		free(d);
	}
}

static int countRows(const Fts5ExtensionApi *api, Fts5Context *fts, void *user) {
	(void)api;
	(void)fts;
	(*(sqlite3_int64 *)user)++;
	return SQLITE_OK;
}

// docLength is the length of the current row or, with total set, of all
// rows together: FTS5's count of their tokens, or with multiplicities in
// the arguments (two for each column), the sum over columns of the
// column's multiplicity times its tokens.
static int docLength(const Fts5ExtensionApi *api, Fts5Context *fts, int nVal, sqlite3_value **apVal, int total, double *out) {
	int nCol = api->xColumnCount(fts);
	if (nVal != 2 * nCol) {
		if (total) {
			sqlite3_int64 n = 0;
			int rc = api->xColumnTotalSize(fts, -1, &n);
			*out = (double)n;
			return rc;
		}
		int n = 0;
		int rc = api->xColumnSize(fts, -1, &n);
		*out = n;
		return rc;
	}
	double sum = 0;
	for (int i = 0; i < nCol; i++) {
		double m = sqlite3_value_double(apVal[nCol + i]);
		if (m == 0) continue;
		int rc;
		if (total) {
			sqlite3_int64 n = 0;
			rc = api->xColumnTotalSize(fts, i, &n);
			sum += m * (double)n;
		} else {
			int n = 0;
			rc = api->xColumnSize(fts, i, &n);
			sum += m * n;
		}
		if (rc != SQLITE_OK) return rc;
	}
	*out = sum;
	return SQLITE_OK;
}

static int rankDataGet(const Fts5ExtensionApi *api, Fts5Context *fts, int nVal, sqlite3_value **apVal, rankData **out) {
	rankData *d = (rankData *)api->xGetAuxdata(fts, 0);
	if (d) {
		*out = d;
		return SQLITE_OK;
	}
	sqlite3_int64 nRow = 0;
	double nToken = 0;
	int rc = api->xRowCount(fts, &nRow);
	if (rc == SQLITE_OK) rc = docLength(api, fts, nVal, apVal, 1, &nToken);
	if (rc != SQLITE_OK) return rc;
	int nPhrase = api->xPhraseCount(fts);
	d = (rankData *)calloc(1, sizeof(*d));
	if (!d) return SQLITE_NOMEM;
	d->idf = (double *)calloc(nPhrase > 0 ? nPhrase : 1, sizeof(double));
	if (!d->idf) {
		free(d);
		return SQLITE_NOMEM;
	}
	d->nPhrase = nPhrase;
	d->avgdl = nRow > 0 ? nToken / (double)nRow : 1;
	if (d->avgdl <= 0) d->avgdl = 1;
	for (int i = 0; i < nPhrase && rc == SQLITE_OK; i++) {
		sqlite3_int64 nHit = 0;
		rc = api->xQueryPhrase(fts, i, &nHit, countRows);
		double idf = log((nRow - nHit + 0.5) / (nHit + 0.5));
		d->idf[i] = idf <= 0 ? 1e-6 : idf;
	}
	if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, d, rankDataFree);
	if (rc != SQLITE_OK) {
		rankDataFree(d);
		return rc;
	}
	*out = d;
	return SQLITE_OK;
}

static void ctxrank(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal, sqlite3_value **apVal) {
	rankData *d = NULL;
	int rc = rankDataGet(api, fts, nVal, apVal, &d);
	double nTok = 0;
	if (rc == SQLITE_OK) rc = docLength(api, fts, nVal, apVal, 0, &nTok);
	if (rc != SQLITE_OK) {
		sqlite3_result_error_code(ctx, rc);
		return;
	}
	double norm = CTX_K1 * (1 - CTX_B + CTX_B * nTok / d->avgdl);
	double score = 0;
	for (int i = 0; i < d->nPhrase; i++) {
		Fts5PhraseIter it;
		int col = -1;
		double freq = 0;
		rc = api->xPhraseFirstColumn(fts, i, &it, &col);
		if (rc != SQLITE_OK) {
			sqlite3_result_error_code(ctx, rc);
			return;
		}
		for (; col >= 0; api->xPhraseNextColumn(fts, &it, &col)) {
			freq += col < nVal && col < api->xColumnCount(fts) ? sqlite3_value_double(apVal[col]) : 1.0;
		}
		if (freq > 0) score += d->idf[i] * freq * (CTX_K1 + 1) / (freq + norm);
	}
	sqlite3_result_double(ctx, -score);
}

// ctxRegister adds ctxrank to a connection's FTS5. Getting FTS5's
// interface prepares a statement, which reads the schema: it waits for a
// lock as long as the connection's busy timeout allows.
int ctxRegister(sqlite3 *db) {
	fts5_api *fts = NULL;
	sqlite3_stmt *stmt = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, NULL);
	if (rc != SQLITE_OK) return rc;
	sqlite3_bind_pointer(stmt, 1, (void *)&fts, "fts5_api_ptr", NULL);
	sqlite3_step(stmt);
	rc = sqlite3_finalize(stmt);
	if (rc != SQLITE_OK) return rc;
	if (!fts || fts->iVersion < 2) return SQLITE_ERROR;
	return fts->xCreateFunction(fts, "ctxrank", NULL, ctxrank, NULL);
}
