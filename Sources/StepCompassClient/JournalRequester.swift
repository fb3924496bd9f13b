public import Bus
public import Foundation
public import ServiceRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// Asks the journal (`stepcompass-journal`) on `journal/walks` for a device's walks or a walk's GPX, and waits for its
/// reply (as ``HistoryRequester`` asks the activity service).
public struct JournalRequester: Sendable {
    /// The most walks one request may list (the journal's limit).
    public static let limits = 1...500
    /// The longest walk id the client sends (the journal's ids are UUIDs).
    public static let maximumWalkID = 100

    public let bus: any MessageBus
    public let topics: Topics
    /// How long to wait for the reply.
    public var timeout: Duration

    /// Creates a requester over a connected bus.
    public init(bus: any MessageBus, topics: Topics, timeout: Duration = .seconds(5)) {
        self.bus = bus
        self.topics = topics
        self.timeout = timeout
    }

    /// `stepcompass/journal/walks`.
    public var walksTopic: String { topics.journalWalks }

    /// The device's walks, newest first (the reply may be an error reply: see ``WalkList/walks()``).
    /// - Parameters:
    ///   - device: A valid device id.
    ///   - limit: How many walks at most, in ``limits``.
    /// - Throws: ``StepCompassClientError/Code/invalidInput`` before sending anything; ``StepCompassClientError/Code/noReply``
    ///   when no reply comes within ``timeout``; ``StepCompassClientError/Code/unreadableReply``.
    public func walks(of device: String, limit: Int = 50) async throws -> WalkList {
        try Self.validate(device: device)
        guard Self.limits.contains(limit) else {
            throw StepCompassClientError.invalidInput("--limit must be \(Self.limits.lowerBound)...\(Self.limits.upperBound), not \(limit)")
        }
        let reply = try await send(WalksRequest(device: device, limit: limit))
        return try WalkList(payload: reply)
    }

    /// A walk's GPX 1.1 document (the reply may be an error reply, such as an unknown walk: see ``WalkGPX/document()``).
    /// - Parameters:
    ///   - walk: The walk's id, as ``walks(of:limit:)`` lists it.
    ///   - device: The device that walked it.
    /// - Throws: As ``walks(of:limit:)``.
    public func gpx(of walk: String, device: String) async throws -> WalkGPX {
        try Self.validate(device: device)
        try Self.validate(walk: walk)
        let reply = try await send(WalksRequest(device: device, walk: walk, format: "gpx"))
        return try WalkGPX(payload: reply)
    }

    /// Checks a walk id given on the command line: not empty, at most ``maximumWalkID`` characters, no `/`, spaces
    /// or control characters (so `WALK.gpx` is a plain file name).
    public static func validate(walk: String) throws(StepCompassClientError) {
        guard !walk.isEmpty, walk.count <= maximumWalkID, walk != ".", walk != "..",
            !walk.unicodeScalars.contains(where: { $0 == "/" || $0 == "\\" || $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw .invalidInput("'\(walk.prefix(60))' is not a walk id: give one as `stepcompass walks` lists it")
        }
    }

    /// A walk's photo points, in order.
    /// - Throws: ``StepCompassClientError`` for a bad device or walk id, no reply, an unreadable reply or an error
    ///   reply (with the journal's message).
    public func points(of walk: String, device: String) async throws -> [JournalPhotoPoint] {
        try Self.validate(device: device)
        try Self.validate(walk: walk)
        let payload = try await send(WalksRequest(device: device, walk: walk))
        guard let reply = try? JSONDecoder().decode(WalksReply.self, from: payload), reply.error != nil || reply.points != nil else {
            throw StepCompassClientError(
                .unreadableReply, "the journal's reply is not a walk: \(String(decoding: payload.prefix(200), as: UTF8.self))")
        }
        if let error = reply.error { throw error.error(from: .journal) }
        return reply.points ?? []
    }

    private static func validate(device: String) throws(StepCompassClientError) {
        do { try DeviceID.validate(device) } catch { throw .invalidInput("--device: \(error.message)") }
    }

    private func send(_ body: WalksRequest) async throws -> Data {
        try await ServiceRequest(bus: bus, topics: topics, timeout: timeout)
            .send(to: walksTopic, replyLevel: "walks", from: .journal) { replyTo, correlationId in
                var body = body
                body.replyTo = replyTo
                body.correlationId = .string(correlationId)
                return ServiceRequest.encode(body)
            }
    }
}

/// The journal's list of a device's walks, raw and decoded.
public struct WalkList: Sendable, Hashable {
    /// The reply's bytes, as received (`--json` prints them).
    public let payload: Data
    let reply: WalksReply

    /// Decodes a reply payload.
    /// - Throws: ``StepCompassClientError/Code/unreadableReply``.
    public init(payload: Data) throws(StepCompassClientError) {
        self.payload = payload
        guard let decoded = try? JSONDecoder().decode(WalksReply.self, from: payload), decoded.error != nil || decoded.walks != nil else {
            throw StepCompassClientError(
                .unreadableReply,
                "the journal's reply is not a list of walks: \(String(decoding: payload.prefix(200), as: UTF8.self))")
        }
        reply = decoded
    }

    /// The walks, newest first.
    /// - Throws: ``StepCompassClientError/Code/errorReply`` with the journal's message for an error reply.
    public func walks() throws(StepCompassClientError) -> [JournalWalk] {
        if let error = reply.error { throw error.error(from: .journal) }
        let walks = reply.walks ?? []
        // The journal sends them newest first; sorted again (stably) so the table is right whatever the order.
        return walks.enumerated().sorted { left, right in
            let (a, b) = (left.element.startedDate ?? .distantPast, right.element.startedDate ?? .distantPast)
            return a != b ? a > b : left.offset < right.offset
        }.map(\.element)
    }

    /// A table: each walk's id, name, start and stop (UTC, `on` while it is on), distance and photos, newest first.
    public func table() throws(StepCompassClientError) -> [String] {
        let walks = try walks()
        let header = ["id", "name", "started (UTC)", "stopped (UTC)", "distance", "photos"]
        guard !walks.isEmpty else { return [header.joined(separator: "  "), "(no walks yet)"] }
        let rows = walks.map { walk -> [String] in
            let name: String = walk.name.flatMap { $0.isEmpty ? nil : $0 } ?? "—"
            let started: String = walk.started.map(JournalWalk.minute) ?? "—"
            let stopped: String = walk.stopped.map(JournalWalk.minute) ?? "on"
            let distance: String = walk.distance.map(JournalWalk.distanceText) ?? "—"
            let photos: String = walk.photos.map { "\($0)" } ?? "—"
            return [walk.id, name, started, stopped, distance, photos]
        }
        // Text left-aligned, numbers right-aligned.
        return ClientText.table(header, rows, rightAligned: [4, 5])
    }
}

/// The journal's GPX reply for a walk, raw and decoded.
public struct WalkGPX: Sendable, Hashable {
    /// The reply's bytes, as received.
    public let payload: Data
    let reply: WalksReply

    /// Decodes a reply payload.
    /// - Throws: ``StepCompassClientError/Code/unreadableReply``.
    public init(payload: Data) throws(StepCompassClientError) {
        self.payload = payload
        guard let decoded = try? JSONDecoder().decode(WalksReply.self, from: payload), decoded.error != nil || decoded.gpx != nil else {
            throw StepCompassClientError(
                .unreadableReply,
                "the journal's reply is not a GPX reply: \(String(decoding: payload.prefix(200), as: UTF8.self))")
        }
        reply = decoded
    }

    /// The GPX 1.1 document.
    /// - Throws: ``StepCompassClientError/Code/errorReply`` with the journal's message for an error reply (an unknown
    ///   walk: `the journal answered: phone-1 has no walk 'x' (notFound)`).
    public func document() throws(StepCompassClientError) -> String {
        if let error = reply.error { throw error.error(from: .journal) }
        return reply.gpx ?? ""
    }

    /// Writes the document to `path` (replacing a file there, atomically).
    /// - Returns: What was written, in words: `wrote walk 3f2a… to 3f2a….gpx (240 track points, 3 waypoints)`.
    /// - Throws: ``StepCompassClientError/Code/errorReply`` for an error reply (nothing is written);
    ///   ``StepCompassClientError/Code/writeFailed`` when the file cannot be written.
    public func write(to path: String) throws(StepCompassClientError) -> String {
        let document = try document()
        do {
            try Data(document.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw StepCompassClientError(.writeFailed, "cannot write \(path): \(Self.reason(error))")
        }
        let points = document.components(separatedBy: "<trkpt ").count - 1
        let waypoints = document.components(separatedBy: "<wpt ").count - 1
        let walk = reply.walkID.map { "walk \($0)" } ?? "the walk"
        return "wrote \(walk) to \(path) (\(points) track point\(points == 1 ? "" : "s"), \(waypoints) waypoint\(waypoints == 1 ? "" : "s"))"
    }

    /// The system's reason (`No such file or directory`), else Foundation's sentence.
    private static func reason(_ error: any Error) -> String {
        let object = error as NSError
        if let underlying = object.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        switch (error as? CocoaError)?.code {
        case .fileNoSuchFile?: return String(cString: strerror(ENOENT))
        case .fileWriteNoPermission?: return String(cString: strerror(EACCES))
        case .fileWriteOutOfSpace?: return String(cString: strerror(ENOSPC))
        case .fileWriteVolumeReadOnly?: return String(cString: strerror(EROFS))
        default: return object.localizedDescription
        }
    }
}
