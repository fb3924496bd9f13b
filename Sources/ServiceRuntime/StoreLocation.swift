import Foundation
public import Logging

/// Opens the store a service's settings name: PostgreSQL for a `database.url`, else the SQLite file `fileName` in
/// `data.dir` (created with its folder). The activity and journal services keep their data this way.
/// - Parameters:
///   - what: What is kept, for the log ("activity history", "walks").
///   - postgres: Opens the PostgreSQL store at a URL.
///   - sqlite: Opens the SQLite store at a path.
/// - Throws: `ConfigurationError` naming the setting: a database URL that is not one, a folder that cannot be created.
public func openStore<Store>(
    databaseURL: String?, dataDirectory: String, fileName: String, what: String, logger: Logger,
    postgres: (String) throws -> Store, sqlite: (String) throws -> Store
) throws -> Store {
    if let url = databaseURL {
        do {
            let store = try postgres(url)
            logger.info("\(what) in PostgreSQL")
            return store
        } catch {
            throw ConfigurationError("the setting 'database.url': \(error)")
        }
    }
    do {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let path = (dataDirectory as NSString).appendingPathComponent(fileName)
        logger.info("\(what) in SQLite", metadata: ["database": "\(path)"])
        return try sqlite(path)
    } catch {
        throw ConfigurationError("the setting 'data.dir' ('\(dataDirectory.prefix(200))'): \(error)")
    }
}
