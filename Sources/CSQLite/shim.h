#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer, which Swift does not import.
static inline sqlite3_destructor_type CSQLite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_config is variadic; this wrapper selects serialized threading mode.
static inline int CSQLite_configSerialized(void) { return sqlite3_config(SQLITE_CONFIG_SERIALIZED); }

// sqlite3_config is variadic; this wrapper turns off memory statistics, which put a global mutex
// around every allocation SQLite makes. Only valid before sqlite3_initialize (the first open).
static inline int CSQLite_configNoMemoryStatistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

// sqlite3_db_config is variadic; this wrapper sets SQLITE_DBCONFIG_DEFENSIVE (1 on, 0 off, negative
// to leave it) and returns the setting in force afterwards, or -1 when the call failed.
static inline int CSQLite_defensive(sqlite3 *db, int on) {
    int now = -1;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, &now) != SQLITE_OK) return -1;
    return now;
}

#endif
