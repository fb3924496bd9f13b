import Foundation

/// The disk cache: the last good document of each source URL, so a restart without network
/// still answers (with `fromCache: true`) until a fetch succeeds.
///
/// One pair of files per source URL, named after a 128-bit FNV-1a hash of the URL (two 64-bit
/// lanes; collisions are harmless because the metadata repeats the URL and is checked): the raw
/// body as fetched (`<hash>.body`, so a restore counts rejections exactly as the fetch did) and
/// its validators (`<hash>.json`: URL, ETag, Last-Modified, fetch time). Both are written
/// atomically, body first, so a crash mid-write leaves the previous pair or a body without
/// matching metadata, which is ignored.
struct MarkerCache: Sendable {
    /// What is stored beside a body.
    struct Metadata: Codable, Sendable, Equatable {
        var source: String
        var etag: String?
        var lastModified: String?
        var fetchedAt: Date
        var byteCount: Int
    }

    /// A cached document.
    struct Entry: Sendable {
        var metadata: Metadata
        /// The body, read as a file source is (decoding gives its memory back as it goes).
        var body: FileDocument
    }

    let directory: String

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// The file name stem for a source: 32 hex digits.
    static func key(for source: String) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x6c62_272e_07bb_0142
        for byte in source.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = b &+ (b >> 29)
        }
        func hex(_ value: UInt64) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return hex(a) + hex(b)
    }

    func bodyPath(for source: String) -> String { "\(directory)/\(Self.key(for: source)).body" }
    func metadataPath(for source: String) -> String { "\(directory)/\(Self.key(for: source)).json" }

    /// The cached document of `source`, or nil when there is none or it does not match.
    func load(source: String, limit: Int) async -> Entry? {
        guard let metaBytes = try? await BlockingFileIO.read(path: metadataPath(for: source), limit: 64 * 1024),
            let metadata = try? Self.decoder.decode(Metadata.self, from: Data(metaBytes)),
            metadata.source == source,
            let body = try? await BlockingFileIO.run({ [path = bodyPath(for: source)] in
                try FileDocument.read(path: path, limit: limit)
            }),
            body.count == metadata.byteCount
        else { return nil }
        return Entry(metadata: metadata, body: body)
    }

    /// Stores a document and its validators.
    func store(source: String, body: [UInt8], etag: String?, lastModified: String?, fetchedAt: Date) async throws {
        let metadata = Metadata(
            source: source, etag: etag, lastModified: lastModified, fetchedAt: fetchedAt, byteCount: body.count)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        let metaData = try encoder.encode(metadata)
        try await BlockingFileIO.writeAtomically(Data(body), to: bodyPath(for: source))
        try await BlockingFileIO.writeAtomically(metaData, to: metadataPath(for: source))
    }
}
