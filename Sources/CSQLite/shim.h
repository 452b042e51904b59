#ifndef NOTES_PAGE_CSQLITE_SHIM_H
#define NOTES_PAGE_CSQLITE_SHIM_H

#include <sqlite3.h>

/// `SQLITE_TRANSIENT` is a cast of -1 to a function pointer, which Swift cannot import: these bind a copy.
static inline int notes_sqlite3_bind_text(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

static inline int notes_sqlite3_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

/// Extended result codes are macros of expressions, which Swift does not import.
static const int notes_sqlite3_constraint_primarykey = SQLITE_CONSTRAINT_PRIMARYKEY;
static const int notes_sqlite3_constraint_unique = SQLITE_CONSTRAINT_UNIQUE;

#endif
