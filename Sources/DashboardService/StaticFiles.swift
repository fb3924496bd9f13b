import Foundation

/// The page's files (Resources/Public), read once at start: a handful of small files served from memory.
struct StaticFiles: Sendable {
    struct File: Sendable {
        let bytes: [UInt8]
        let contentType: String
    }

    private let files: [String: File]

    /// Reads every file of the bundled `Public` folder.
    /// - Throws: ``DashboardServiceError/pageMissing(_:)`` when the resource bundle is not next to the
    ///   executable (a binary copied without its `.resources` folder).
    static func bundled() throws(DashboardServiceError) -> StaticFiles {
        guard let folder = Bundle.module.url(forResource: "Public", withExtension: nil) else {
            throw .pageMissing("the dashboard's page is missing: copy the StepCompass_DashboardService.resources folder next to the executable")
        }
        return try StaticFiles(folder: folder)
    }

    init(folder: URL) throws(DashboardServiceError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw .pageMissing("cannot read the page's folder \(folder.path): \(error)")
        }
        var files: [String: File] = [:]
        for name in names where !name.hasPrefix(".") {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else { continue }
            files[name] = File(bytes: Array(data), contentType: Self.contentType(of: name))
        }
        guard files["index.html"] != nil else {
            throw .pageMissing("the page's folder \(folder.path) has no index.html")
        }
        self.files = files
    }

    /// The file of that name (no folders: the page is flat).
    func file(named name: String) -> File? { files[name] }

    /// Every file's name (`index.html`, `app.js`, ...).
    var names: Set<String> { Set(files.keys) }

    private static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last.map(String.init) ?? "" {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "json": "application/json"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
