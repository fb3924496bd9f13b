import Foundation
import JournalKit
import Logging

/// The journal's image cache: each photo's image downloaded once into a folder, with a size limit; the least recently
/// used images go first when it is full. The dashboard serves the files from the same folder.
///
/// File names are the photo id made safe (`wikimedia-12345.jpg`), so a restart finds its files again: the index is
/// rebuilt from the folder at start, oldest modification first.
actor ImageCache {
    let directory: URL
    private var index: CacheIndex
    private let logger: Logger
    private var files: [String: String] = [:]  // photo id → file name
    private var clock: Double = 0

    /// Opens the cache in `directory` (created when missing).
    /// - Throws: When the folder cannot be created or read.
    init(directory: String, limit: Int, logger: Logger) throws {
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        self.directory = url
        self.logger = logger
        var index = CacheIndex(limit: limit)
        var found: [(name: String, size: Int, modified: Double)] = []
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        for file in try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: keys) {
            let values = try? file.resourceValues(forKeys: Set(keys))
            guard values?.isRegularFile == true, !file.lastPathComponent.hasPrefix(".") else { continue }
            found.append((file.lastPathComponent, values?.fileSize ?? 0, values?.contentModificationDate?.timeIntervalSince1970 ?? 0))
        }
        var evicted: [String] = []
        for (order, file) in found.sorted(by: { $0.modified < $1.modified }).enumerated() {
            evicted += index.insert(file.name, size: file.size, at: Double(order))
        }
        self.index = index
        self.clock = Double(found.count)
        for name in evicted { try? FileManager.default.removeItem(at: url.appendingPathComponent(name)) }
        for file in found where index.contains(file.name) {
            files[Self.photoID(fileName: file.name)] = file.name
        }
    }

    /// The cached file of a photo (marked as used), nil when not cached.
    func file(for photoID: String) -> String? {
        guard let name = files[photoID], index.contains(name) else { return nil }
        clock += 1
        index.touch(name, at: clock)
        return name
    }

    /// Stores an image and returns its file name; older images are deleted when the cache is over its limit.
    /// - Throws: When the file cannot be written (disk full, permissions).
    func store(_ bytes: [UInt8], for photoID: String, kind: ImageKind) throws -> String {
        let name = Self.fileName(photoID: photoID, kind: kind)
        let target = directory.appendingPathComponent(name)
        try Data(bytes).write(to: target, options: .atomic)
        clock += 1
        let evicted = index.insert(name, size: bytes.count, at: clock)
        for old in evicted {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(old))
            if files[Self.photoID(fileName: old)] == old { files[Self.photoID(fileName: old)] = nil }
        }
        guard index.contains(name) else {
            throw CacheError(description: "the image of \(photoID) (\(bytes.count) bytes) is larger than the whole cache")
        }
        files[photoID] = name
        if !evicted.isEmpty {
            logger.debug(
                "image cache full; least recently used images deleted",
                metadata: [
                    "journal.evicted": "\(evicted.count)", "journal.cacheBytes": "\(index.totalBytes)",
                ])
        }
        return name
    }

    /// `wikimedia:123` → `wikimedia-123.jpg`: letters, digits, `-` and `_` only.
    static func fileName(photoID: String, kind: ImageKind) -> String {
        let safe = String(
            photoID.unicodeScalars.prefix(100).map { scalar -> Character in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "_": Character(scalar)
                default: "-"
                }
            })
        return "\(safe).\(kind.rawValue)"
    }

    /// The photo id of a file name (the first `-` back to `:`): good enough to find files again after a restart.
    static func photoID(fileName: String) -> String {
        let stem = (fileName as NSString).deletingPathExtension
        guard let dash = stem.firstIndex(of: "-") else { return stem }
        return stem[..<dash] + ":" + stem[stem.index(after: dash)...]
    }
}

/// Why an image could not be cached.
struct CacheError: Error, CustomStringConvertible {
    let description: String
}

/// The image formats the journal keeps, recognised by their first bytes (a server's Content-Type is not trusted).
enum ImageKind: String, Sendable {
    case jpg, png, gif, webp

    init?(magic bytes: [UInt8]) {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpg
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if bytes.starts(with: Array("GIF8".utf8)) {
            self = .gif
        } else if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            self = .webp
        } else {
            return nil
        }
    }
}
