import Foundation
import NIOPosix

/// File reads and writes done on swift-nio's thread pool, never on a thread of Swift's cooperative pool.
///
/// The machine has two cores and the cooperative pool two threads: a disk read of a 64 MiB
/// document (or a slow network file system) must not stall every other task of the service.
enum BlockingFileIO {
    /// Runs `work` on swift-nio's shared thread pool (as Hummingbird's `FileIO` does) and returns its result.
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(work)
    }

    /// Reads a whole file of at most `limit` bytes.
    /// - Throws: ``MarkerServiceError/fileError`` or ``MarkerServiceError/tooLarge``.
    static func read(path: String, limit: Int) async throws(MarkerServiceError) -> [UInt8] {
        do {
            return try await run {
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
                defer { try? handle.close() }
                let data = try handle.read(upToCount: limit + 1) ?? Data()
                guard data.count <= limit else {
                    throw MarkerServiceError(.tooLarge, "the file '\(path)' is larger than the limit of \(limit) bytes")
                }
                return [UInt8](data)
            }
        } catch let error as MarkerServiceError {
            throw error
        } catch {
            throw MarkerServiceError(.fileError, "cannot read '\(path)': \(error.localizedDescription)")
        }
    }

    /// Writes `data` atomically (a temporary file renamed over the target), creating the folder.
    static func writeAtomically(_ data: Data, to path: String) async throws {
        try await run {
            let url = URL(fileURLWithPath: path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        }
    }
}
