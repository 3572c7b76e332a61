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

#endif
