import Foundation
import Hummingbird
import NIOCore

/// `GET /vendor/leaflet/{file}` and `GET /vendor/leaflet/images/{file}`: Leaflet's files from the system
/// (`--leaflet-dir`, Debian's `/usr/share/javascript/leaflet` by default), so no third-party code is in the
/// repository and the map works without a CDN.
///
/// Only a plain file name is served — a letter or digit, then letters, digits, `.`, `_` and `-`, no `..`, ending in
/// `.js`, `.css`, `.png`, `.svg`, `.gif` or `.map` — directly in the folder or in its `images` folder (Leaflet's
/// stylesheet points there), so no name can leave the folder. Symbolic links the package installed are followed.
struct VendorFiles: Sendable {
    /// Leaflet's folder.
    let folder: FolderFile
    var directory: String { folder.directory }

    init(directory: String) {
        folder = FolderFile(directory: directory)
    }

    /// The one subfolder served (Leaflet's icons, named relative to its stylesheet).
    static let subfolders: Set<String> = ["images"]
    /// The longest file name served (Debian's longest is `leaflet.markercluster.esm.min.js.map`).
    static let maximumNameLength = 100

    /// The files the page loads, found in the folder.
    struct Installed: Sendable, Hashable {
        /// `leaflet.min.js` when there is one, else `leaflet.js`.
        var script: String
        var stylesheet: String
        /// Leaflet.markercluster (Debian's `libjs-leaflet.markercluster`, in the same folder), when installed.
        var clusterScript: String?
        var clusterStylesheets: [String]
    }

    /// What of Leaflet is installed, nil without Leaflet's script or stylesheet.
    func installed() -> Installed? {
        guard let script = first(of: ["leaflet.min.js", "leaflet.js"]), isFile("leaflet.css") else { return nil }
        let clusterScript = first(of: ["leaflet.markercluster.min.js", "leaflet.markercluster.js"])
        let clusterStylesheets = ["MarkerCluster.css", "MarkerCluster.Default.css"]
        let cluster = clusterScript != nil && clusterStylesheets.allSatisfy(isFile)
        return Installed(
            script: script, stylesheet: "leaflet.css", clusterScript: cluster ? clusterScript : nil,
            clusterStylesheets: cluster ? clusterStylesheets : [])
    }

    /// The Content-Type of a file name served, nil for any other name.
    static func contentType(ofFile name: String) -> String? {
        let alphanumeric: (Unicode.Scalar) -> Bool = { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9": true
            default: false
            }
        }
        guard (1...maximumNameLength).contains(name.utf8.count), !name.contains(".."),
            let first = name.unicodeScalars.first, alphanumeric(first),
            name.unicodeScalars.allSatisfy({ alphanumeric($0) || $0 == "_" || $0 == "-" || $0 == "." }),
            let dot = name.lastIndex(of: ".")
        else { return nil }
        switch name[name.index(after: dot)...] {
        case "js": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "png": return "image/png"
        case "svg": return "image/svg+xml"
        case "gif": return "image/gif"
        case "map": return "application/json"
        default: return nil
        }
    }

    /// The answer for `file`, in `subfolder` (nil: the folder itself).
    func response(file name: String, subfolder: String? = nil, context: BasicRequestContext) async -> Response {
        guard let contentType = Self.contentType(ofFile: name), subfolder.map(Self.subfolders.contains) ?? true else {
            return JSONResponse.error(
                "badRequest", "not a Leaflet file name: letters, digits, ., _ and - then .js, .css, .png, .svg, .gif or .map",
                status: .badRequest)
        }
        let relative = subfolder.map { "\($0)/\(name)" } ?? name
        guard isFile(relative) else {
            if !isDirectory(directory) {
                return JSONResponse.error(
                    "notFound", "Leaflet is not installed: no folder \(directory) (apt-get install libjs-leaflet, or --leaflet-dir)",
                    status: .notFound)
            }
            return JSONResponse.error("notFound", "no file '\(relative)' in Leaflet's folder", status: .notFound)
        }
        do {
            return try await folder.response(path: path(relative), contentType: contentType, context: context)
        } catch {
            return JSONResponse.error("notFound", "no file '\(relative)' in Leaflet's folder", status: .notFound)
        }
    }

    private func path(_ relative: String) -> String { folder.path(relative) }

    private func first(of names: [String]) -> String? { names.first(where: isFile) }

    /// A file (through symbolic links), not a folder.
    private func isFile(_ relative: String) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path(relative), isDirectory: &folder) && !folder.boolValue
    }

    private func isDirectory(_ path: String) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && folder.boolValue
    }
}
