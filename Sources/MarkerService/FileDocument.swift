import MarkerKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file source's bytes, read once into memory of their own, which the decoder hands back page by page as it goes.
///
/// The HTTP body limit (`--max-body`) is there against a server that sends without end; a local file's size is known
/// before a byte is read, so it has its own, much larger limit (`--max-file-size`, 2 GiB by default), checked first.
/// The bytes go straight from the kernel into an anonymous mapping (no `Data`, no array copy), and as the decoder
/// finishes each few MiB of features those pages go back to the system (`madvise(MADV_DONTNEED)`), so a 170 MB file
/// is never resident whole next to the million markers decoded from it.
///
/// Not a mapping of the file itself: a file truncated while it is mapped kills the reader with SIGBUS, and the
/// service must survive someone rewriting its source in place.
///
/// `@unchecked Sendable`: the memory is written only inside ``read(path:limit:)``, before the value is shared, and
/// ``decode()`` (which gives the pages back) is called once, by the one pipeline stage that holds the document.
final class FileDocument: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer
    private let mappedLength: Int
    /// The file's size: the bytes read.
    let count: Int

    private init(base: UnsafeMutableRawPointer, mappedLength: Int, count: Int) {
        self.base = base
        self.mappedLength = mappedLength
        self.count = count
    }

    deinit {
        munmap(base, mappedLength)
    }

    private static let pageSize = max(4_096, Int(sysconf(Int32(_SC_PAGESIZE))))

    /// Reads the whole file at `path`, refusing one larger than `limit` bytes before reading it.
    ///
    /// Blocking: run it on a thread of its own (``BlockingFileIO/run(_:)``).
    /// - Throws: ``MarkerServiceError`` `tooLarge` (above `limit`), or `fileError` (missing, unreadable, a folder).
    static func read(path: String, limit: Int) throws(MarkerServiceError) -> FileDocument {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw fileError(path, errno) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw fileError(path, errno) }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR {
            throw MarkerServiceError(.fileError, "cannot read '\(path)': it is a folder")
        }
        // A regular file's size is known: refuse it before reading, and read it into one mapping of that size (one
        // byte more, to see a file that grows while it is read). Anything else (a pipe) grows the mapping as it comes.
        let capacity: Int
        if type == S_IFREG {
            let size = Int(info.st_size)
            guard size <= limit else { throw tooLarge(path, size: size, limit: limit) }
            capacity = size + 1
        } else {
            capacity = min(limit + 1, 1 << 20)
        }
        var mapping = try allocate(capacity, path: path)
        var total = 0
        while true {
            if total == mapping.length {
                guard total <= limit else {
                    munmap(mapping.base, mapping.length)
                    throw tooLarge(path, size: nil, limit: limit)
                }
                // The file is longer than its size said (it grew, or it is a pipe): a larger mapping, up to the limit.
                let grown: (base: UnsafeMutableRawPointer, length: Int)
                do {
                    grown = try allocate(min(limit + 1, max(mapping.length * 2, mapping.length + (1 << 20))), path: path)
                } catch {
                    munmap(mapping.base, mapping.length)
                    throw error
                }
                grown.base.copyMemory(from: mapping.base, byteCount: total)
                munmap(mapping.base, mapping.length)
                mapping = grown
            }
            let got = systemRead(descriptor, mapping.base + total, mapping.length - total)
            if got > 0 {
                total += got
            } else if got == 0 {
                break
            } else if errno != EINTR {
                let code = errno
                munmap(mapping.base, mapping.length)
                throw fileError(path, code)
            }
        }
        guard total <= limit else {
            munmap(mapping.base, mapping.length)
            throw tooLarge(path, size: total, limit: limit)
        }
        return FileDocument(base: mapping.base, mappedLength: mapping.length, count: total)
    }

    /// Decodes the document, giving each finished stretch of pages back to the system.
    ///
    /// Once only: the pages given back read as zeros afterwards (a second call fails as invalid JSON, nothing worse).
    func decode() throws(MarkerDecodingError) -> DecodeReport {
        let bytes = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count)
        var released = 0
        let base = self.base
        let pageMask = ~(Self.pageSize - 1)
        return try MarkerCollectionDecoder().decode(bytes) { offset in
            let end = offset & pageMask
            guard end > released else { return }
            _ = madvise(base + released, end - released, Int32(MADV_DONTNEED))
            released = end
        }
    }

    private static func allocate(_ length: Int, path: String) throws(MarkerServiceError) -> (base: UnsafeMutableRawPointer, length: Int) {
        let rounded = (max(length, 1) + pageSize - 1) / pageSize * pageSize
        let pointer = mmap(nil, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let pointer, pointer != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw MarkerServiceError(.fileError, "cannot read '\(path)': no memory for its \(length) bytes")
        }
        return (pointer, rounded)
    }

    private static func fileError(_ path: String, _ code: Int32) -> MarkerServiceError {
        MarkerServiceError(.fileError, "cannot read '\(path)': \(String(cString: strerror(code)))")
    }

    private static func tooLarge(_ path: String, size: Int?, limit: Int) -> MarkerServiceError {
        let size = size.map { "\($0) bytes" } ?? "more than that"
        return MarkerServiceError(
            .tooLarge, "the file '\(path)' is \(size), more than the limit of \(limit) bytes (--max-file-size)")
    }
}

/// `read(2)`, under another name: inside ``FileDocument`` the name `read` is its own.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
