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

/// Turns SQLite's memory statistics off (`SQLITE_CONFIG_MEMSTATUS`, a variadic call Swift cannot make). With them
/// on, every allocation and free in every connection takes one process-wide mutex to count bytes: in a rebuild of
/// the diary index, the writer's and the readers' threads slept 0.39 s of 1.9 s on it. Valid only before SQLite
/// is first initialised (`SQLITE_MISUSE` after).
static inline int csqlite_config_without_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
