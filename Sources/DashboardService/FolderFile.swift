import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The files of a folder the dashboard serves as they are on disk: the journal's cached photos (``JournalPhotos``)
/// and Leaflet's files (``VendorFiles``). Each checks the name its own way; this reads the file.
struct FolderFile: Sendable {
    /// The folder.
    let directory: String
    let fileIO = FileIO()

    /// The path of `relative` in the folder.
    func path(_ relative: String) -> String {
        URL(fileURLWithPath: directory, isDirectory: true).appendingPathComponent(relative).path
    }

    /// The file at `path` with its Content-Type, kept a day by browsers (the files never change under a name) and
    /// never sniffed as another type.
    /// - Throws: When it cannot be read.
    func response(path: String, contentType: String, context: BasicRequestContext) async throws -> Response {
        let body = try await fileIO.loadFile(path: path, context: context)
        return Response(
            status: .ok,
            headers: [
                .contentType: contentType, .cacheControl: "public, max-age=86400",
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            ],
            body: body)
    }
}
