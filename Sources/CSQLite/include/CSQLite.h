#ifndef CSQLITE_H
#define CSQLITE_H

/// The system's SQLite (Debian's libsqlite3-0, with FTS5 and R*Tree), and what Swift cannot spell: SQLITE_TRANSIENT
/// is a cast of -1 to a function pointer.
#include <sqlite3.h>

/// Binds a copy of `text` (`n` bytes).
static inline int csqlite_bind_text(sqlite3_stmt *statement, int index, const char *text, int n) {
    return sqlite3_bind_text(statement, index, text, n, SQLITE_TRANSIENT);
}

/// Binds a copy of `bytes` (`n` of them).
static inline int csqlite_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int n) {
    return sqlite3_bind_blob(statement, index, bytes, n, SQLITE_TRANSIENT);
}

#endif
