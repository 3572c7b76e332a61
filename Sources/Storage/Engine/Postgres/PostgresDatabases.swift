/// Databases on a PostgreSQL server, made and dropped through a connection to another one of
/// its databases (`CREATE DATABASE` cannot run inside one's own). For tests and for setting up a
/// node's database.
package enum PostgresDatabases {
    /// Creates database `name` (letters, digits and `_` only) on `server`'s cluster.
    package static func create(_ name: String, on server: PostgresURL) throws(StoreError) {
        try check(name)
        try PostgresConnection(url: server).execute(script: "CREATE DATABASE \(name)")
    }

    /// Drops database `name`, closing its sessions first.
    package static func drop(_ name: String, on server: PostgresURL) throws(StoreError) {
        try check(name)
        try PostgresConnection(url: server).execute(script: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    private static func check(_ name: String) throws(StoreError) {
        guard !name.isEmpty, name.utf8.count <= 63,
            name.unicodeScalars.allSatisfy({ $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0)) }
            )
        else { throw StoreError(.invalid, "\(name) is not a database name RevenueDot makes (letters, digits, _)") }
    }
}
