import Foundation
import ZIPFoundation

/// What `--replay FILE` names, told apart by content rather than by a flag or the file name: a folder, a zip
/// archive (a regular file starting with `PK\u{3}\u{4}`), or else a recording of JSON lines (``RecordedMessage``).
enum ReplayInput: Sendable, Hashable {
    /// A file of JSON lines written by ``SensorRecorder``.
    case recording
    /// A folder holding a phyphox or Sensor Logger CSV export.
    case folder
    /// A zip archive holding a phyphox or Sensor Logger CSV export.
    case zip

    /// What `--replay` accepts, for error messages.
    static let expected = "a StepCompass recording (JSON lines), a phyphox export or a Sensor Logger export (a .zip or its folder)"

    /// Tells what `file` is from what is there.
    /// - Throws: ``SensorsError/Code/unreadableRecording`` when nothing is there, it cannot be read, or it is named
    ///   `.zip` without being one.
    static func detect(_ file: URL) throws -> ReplayInput {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
            throw SensorsError(.unreadableRecording, "'\(file.path)' does not exist; --replay takes \(expected)")
        }
        if isDirectory.boolValue { return .folder }
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            throw SensorsError(.unreadableRecording, "cannot read the recording '\(file.path)'")
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4)) ?? Data()
        // A local file header, or the end record of an empty archive.
        if head.elementsEqual([0x50, 0x4B, 0x03, 0x04]) || head.elementsEqual([0x50, 0x4B, 0x05, 0x06]) { return .zip }
        if file.pathExtension.lowercased() == "zip" {
            throw SensorsError(
                .unreadableRecording, "'\(file.path)' is named .zip but is not a zip archive (it does not start with PK); --replay takes \(expected)")
        }
        return .recording
    }
}

/// Reads the CSV files of a phone export, a folder or a zip, as `[name: contents]` for
/// `PhoneRecording.decode(files:clockStart:)`. Names are relative to the folder (`meta/time.csv`); one folder that
/// holds everything (as zips often have) is taken off. Only `.csv` files are read, hidden files and `__MACOSX`
/// left out; each file is held once, as text.
enum PhoneExportFiles {
    /// The CSV files under `folder`, recursively.
    static func read(folder: URL) throws -> [String: String] {
        guard let paths = FileManager.default.enumerator(atPath: folder.path) else {
            throw SensorsError(.unreadableRecording, "cannot list the folder '\(folder.path)'")
        }
        var files: [String: String] = [:]
        while let path = paths.nextObject() as? String {
            guard wanted(path) else { continue }
            let url = folder.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw SensorsError(.unreadableRecording, "cannot read '\(url.path)'")
            }
            files[path] = String(decoding: data, as: UTF8.self)
        }
        guard !files.isEmpty else {
            throw SensorsError(.unreadableRecording, "the folder '\(folder.path)' holds no CSV files; --replay takes \(ReplayInput.expected)")
        }
        return withoutCommonFolder(files)
    }

    /// The CSV files in the zip archive `file`.
    static func read(zip file: URL) throws -> [String: String] {
        let archive: Archive
        do {
            archive = try Archive(url: file, accessMode: .read)
        } catch {
            throw SensorsError(.unreadableRecording, "'\(file.path)' is not a readable zip archive (truncated or damaged: \(error))")
        }
        var files: [String: String] = [:]
        for entry in archive where entry.type == .file && wanted(entry.path) {
            var data = Data()
            data.reserveCapacity(Int(min(entry.uncompressedSize, 1 << 30)))
            do {
                _ = try archive.extract(entry, skipCRC32: false) { data.append($0) }
            } catch {
                throw SensorsError(
                    .unreadableRecording, "cannot extract '\(entry.path)' from the zip archive '\(file.path)' (truncated or damaged: \(error))")
            }
            files[entry.path] = String(decoding: data, as: UTF8.self)
        }
        guard !files.isEmpty else {
            throw SensorsError(.unreadableRecording, "the zip archive '\(file.path)' holds no CSV files; --replay takes \(ReplayInput.expected)")
        }
        return withoutCommonFolder(files)
    }

    /// Whether a path inside an export is a CSV file worth reading.
    static func wanted(_ path: String) -> Bool {
        let components = path.split(whereSeparator: { $0 == "/" || $0 == "\\" })
        guard let name = components.last, name.lowercased().hasSuffix(".csv") else { return false }
        return !components.contains { $0.hasPrefix(".") || $0 == "__MACOSX" }
    }

    /// `files` with the one top folder that holds them all taken off the names (not `meta`, phyphox's own).
    static func withoutCommonFolder(_ files: [String: String]) -> [String: String] {
        var top: Substring?
        for name in files.keys {
            guard let slash = name.firstIndex(of: "/") else { return files }
            let folder = name[..<slash]
            if let top, top != folder { return files }
            top = folder
        }
        guard let top, top.lowercased() != "meta" else { return files }
        var stripped: [String: String] = [:]
        stripped.reserveCapacity(files.count)
        for (name, contents) in files { stripped[String(name.dropFirst(top.count + 1))] = contents }
        return stripped
    }
}
