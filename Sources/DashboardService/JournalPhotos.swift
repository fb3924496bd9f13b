import Foundation
import Hummingbird
import NIOCore

/// `GET /journal/photos/{file}`: the journal's cached images (its `--cache-dir`, the dashboard's
/// `--journal-cache-dir`), the `imageUrl` of the photos it publishes.
///
/// Only a plain file name is served — letters, digits, `_` and `-`, then `.jpg`, `.png`, `.gif` or `.webp`, as the
/// journal names its files — so no name can leave the folder. The images never change under a name (a name is a
/// photo's id), so browsers may keep them a day.
struct JournalPhotos: Sendable {
    /// The journal's cache folder.
    let folder: FolderFile

    init(directory: String) {
        folder = FolderFile(directory: directory)
    }

    /// The longest file name served (the journal's are at most about 105 characters).
    static let maximumNameLength = 160

    /// The Content-Type of a file name the dashboard serves, nil for any other name.
    static func contentType(ofFile name: String) -> String? {
        guard name.utf8.count <= maximumNameLength, let dot = name.lastIndex(of: ".") else { return nil }
        let stem = name[..<dot]
        guard !stem.isEmpty,
            stem.unicodeScalars.allSatisfy({ scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "_", "-": true
                default: false
                }
            })
        else { return nil }
        switch name[name.index(after: dot)...] {
        case "jpg": return "image/jpeg"
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        default: return nil
        }
    }

    func response(file name: String, context: BasicRequestContext) async -> Response {
        guard let contentType = Self.contentType(ofFile: name) else {
            return JSONResponse.error(
                "badRequest", "not a photo file name: letters, digits, _ and - then .jpg, .png, .gif or .webp", status: .badRequest)
        }
        let path = folder.path(name)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular
        else {
            return notFound(name)
        }
        do {
            return try await folder.response(path: path, contentType: contentType, context: context)
        } catch {
            return notFound(name)
        }
    }

    private func notFound(_ name: String) -> Response {
        JSONResponse.error("notFound", "no photo '\(name)' in the journal's cache", status: .notFound)
    }
}
