import Bus
import DashboardKit
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceRuntime

/// The dashboard's HTTP interface: the page, its event stream, the state, the commands it sends, the services'
/// answers it asks for (nearest markers, step history, the journal's walks and GPX), and the journal's cached photos.
///
/// Every command is checked here and published on the bus as the contract's command; the services do
/// the work and the change comes back through the event stream, so the page never assumes an outcome.
/// The requests to services share ``ServiceRequester`` and one mapping of failures to HTTP statuses.
struct DashboardRoutes: Sendable {
    let hub: DashboardHub
    let files: StaticFiles
    let bus: any MessageBus
    let topics: Topics
    let configuration: DashboardConfiguration
    /// The access token every request but the page's needs (``DashboardConfiguration/accessToken()``); nil: none.
    let accessToken: String?
    let logger: Logger

    /// The largest command body read.
    private static let maxBody = 16 * 1024

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        // Requests by route and status, and their duration (swift-metrics; served with --metrics-port): first, so
        // it sees every route, unknown ones included.
        router.add(middleware: MetricsMiddleware())
        // The access token, when there is one: before the routes (and the cross-site guard), so nothing but the page's
        // own files is answered without it.
        router.add(middleware: AuthTokenGuard(policy: AuthTokenPolicy(token: accessToken, pageFiles: files.names)))
        // Commands only from the dashboard's own page or from scripts, as JSON: before the routes, so it guards them all.
        router.add(middleware: CrossSiteGuard())
        router.get("/") { _, _ in serve("index.html") }
        router.get("/healthz") { _, _ in JSONResponse.make(["status": "ok"]) }
        // Behind the token's guard: 200 says the request's token (or none, when none is required) lets the page in.
        let tokenRequired = accessToken != nil
        router.get("/api/auth") { _, _ in JSONResponse.make(["tokenRequired": tokenRequired]) }
        router.get("/api/state") { request, _ in
            let device = request.uri.queryParameters.get("device").flatMap { $0.isEmpty ? nil : $0 }
            return JSONResponse.make(await hub.snapshot(device: device))
        }
        router.get("/events") { request, _ in events(request) }
        router.post("/api/devices/:device/bearing-lock") { request, context in
            await command(request, context, .commandBearingLock)
        }
        router.post("/api/devices/:device/settings") { request, context in
            await command(request, context, .commandSettings)
        }
        router.post("/api/devices/:device/calibrate") { request, context in
            await command(request, context, .commandCalibrate)
        }
        router.post("/api/devices/:device/reset-position") { request, context in
            await command(request, context, .commandResetPosition)
        }
        router.post("/api/devices/:device/walk") { request, context in
            await command(request, context, .commandWalk)
        }
        router.post("/api/markers/refresh") { _, _ in
            await publish(BusMessage(topic: topics.markersRefresh, payload: RefreshCommand.payload, qos: .atLeastOnce))
        }
        router.get("/api/devices/:device/history") { request, context in
            await history(request, context)
        }
        router.get("/api/devices/:device/walks") { request, context in
            await walks(request, context)
        }
        router.get("/api/devices/:device/walks/:walk") { _, context in
            await walk(context)
        }
        let photos = JournalPhotos(directory: configuration.journalCacheDirectory)
        router.get("/journal/photos/:file") { _, context in
            await photos.response(file: context.parameters.get("file") ?? "", context: context)
        }
        router.get("/api/markers/:marker/nearest") { request, context in
            await nearest(request, context)
        }
        addMapRoutes(to: router)
        // The page's other files, by name (app.js, style.css, icons).
        router.get("/:file") { _, context in
            serve(context.parameters.get("file") ?? "")
        }
        return router
    }

    private func serve(_ name: String) -> Response {
        guard let file = files.file(named: name) else {
            return Response(status: .notFound, body: ResponseBody(byteBuffer: ByteBuffer(string: "not found\n")))
        }
        return Response(
            status: .ok,
            headers: [.contentType: file.contentType, .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }

    /// `GET /events`: the Server-Sent Events stream for one browser.
    private func events(_ request: Request) -> Response {
        let requested = request.uri.queryParameters.get("device").flatMap { $0.isEmpty ? nil : String($0) }
        let stream = EventStream(hub: hub, requestedDevice: requested, maxRate: configuration.maxEventRate, logger: logger)
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: ResponseBody { writer in try await stream.write(to: &writer) })
    }

    /// Reads a command body, checks it with the contract's decoder, and publishes the command to the device's topic.
    private func command(_ request: Request, _ context: BasicRequestContext, _ topic: Topics.DeviceTopic) async -> Response {
        let device = context.parameters.get("device") ?? ""
        guard DeviceID.isValid(device) else {
            return JSONResponse.error(
                "badRequest", "invalid device id '\(device)': 1 to 64 of A-Z a-z 0-9 _ -, not a reserved name", status: .badRequest)
        }
        var request = request
        let notJSON = "the body is not JSON of at most \(Self.maxBody) bytes"
        let bytes: Data
        do {
            bytes = Data(try await request.collectBody(upTo: Self.maxBody).readableBytesView)
        } catch {
            return JSONResponse.error("badRequest", notJSON, status: .badRequest)
        }
        let command: DeviceCommand
        do {
            command = try DeviceCommand.decode(topic, httpBody: bytes)
        } catch {
            return JSONResponse.error("badRequest", error == DeviceCommand.bodyNotJSON ? notJSON : error.message, status: .badRequest)
        }
        return await publish(BusMessage(topic: topics.device(device, command.topic), payload: command.payload, qos: .atLeastOnce))
    }

    private func publish(_ message: BusMessage) async -> Response {
        do {
            try await bus.publish(message)
            logger.info("command sent", metadata: ["topic": "\(message.topic)", "payload": "\(message.text)"])
            return JSONResponse.make(["published": message.topic], status: .accepted)
        } catch {
            logger.warning("command not sent", metadata: ["topic": "\(message.topic)", "error": "\(error)"])
            return JSONResponse.error("busUnavailable", "the command could not be published: \(error)", status: .serviceUnavailable)
        }
    }

    /// `GET /api/markers/{id}/nearest?count=3`.
    private func nearest(_ request: Request, _ context: BasicRequestContext) async -> Response {
        let marker = context.parameters.get("marker") ?? ""
        let countText = request.uri.queryParameters.get("count") ?? "3"
        guard let count = Int(countText), (1...50).contains(count) else {
            return JSONResponse.error("badRequest", "count must be 1...50, got '\(countText)'", status: .badRequest)
        }
        let client = NearestClient(requester: requester)
        do {
            switch try await client.nearest(markerID: marker, count: count) {
            case .timedOut:
                return JSONResponse.error("timeout", "the marker service did not answer within \(timeoutText) s", status: .gatewayTimeout)
            case .reply(let view):
                guard let code = view.errorCode else { return JSONResponse.make(view) }
                let status: HTTPResponse.Status =
                    switch code {
                    case "notFound": .notFound
                    case "notReady": .serviceUnavailable
                    default: .badRequest
                    }
                return JSONResponse.error(code, view.errorText ?? code, status: status)
            }
        } catch {
            return JSONResponse.error("badGateway", "the marker service's reply could not be read: \(error)", status: .badGateway)
        }
    }

    /// `GET /api/devices/{id}/history?from=ISO&to=ISO&granularity=minute|hour|day[&format=csv]`: the activity
    /// service's history reply as JSON, or as CSV (`start,steps`) for a spreadsheet.
    private func history(_ request: Request, _ context: BasicRequestContext) async -> Response {
        let device = context.parameters.get("device") ?? ""
        guard DeviceID.isValid(device) else {
            return JSONResponse.error("badRequest", "invalid device id '\(device)'", status: .badRequest)
        }
        let query = request.uri.queryParameters
        let granularity = query.get("granularity").map { String($0) } ?? "day"
        let to = query.get("to").map { String($0) } ?? Timestamp.format(Date())
        let defaultSpan: TimeInterval = granularity == "minute" ? 3_600 : granularity == "hour" ? 86_400 : 7 * 86_400
        let from =
            query.get("from").map { String($0) }
            ?? Timestamp.format((Timestamp.parse(to) ?? Date()).addingTimeInterval(-defaultSpan))
        let csv = query.get("format") == "csv"
        let body = HistoryRequest(device: device, from: from, to: to, granularity: granularity)
        let reply: Data
        switch await ask(.activity, topics.activityHistory, body) {
        case .answered(let data): reply = data
        case .failed(let response): return response
        }
        guard csv else {
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply)))
        }
        var text = "start,steps\n"
        for bucket in (try? JSONDecoder().decode(HistoryReply.self, from: reply))?.buckets ?? [] {
            text += "\(bucket.start),\(bucket.steps)\n"
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8",
                .contentDisposition: "attachment; filename=\"\(device)-\(granularity).csv\"",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    // MARK: Requests to the services

    /// The requests' sender, with the configured timeout.
    private var requester: ServiceRequester {
        ServiceRequester(bus: bus, topics: topics, timeout: .milliseconds(Int(configuration.requestTimeout * 1000)))
    }

    /// `5`: the request timeout in words.
    private var timeoutText: String { DisplayText.decimal(configuration.requestTimeout, places: 0) }

    /// A service the dashboard asks, as its errors name it.
    struct RequestedService: Sendable {
        /// `the activity service`.
        let name: String
        /// What a person should check when it does not answer.
        let silenceHint: String

        static let activity = RequestedService(name: "the activity service", silenceHint: "")
        static let journal = RequestedService(
            name: "the journal service", silenceHint: "; it may not be running (stepcompass-journal)")
    }

    /// A service's answer, or the API's error response for the request.
    enum Answer {
        /// The reply's bytes (not an error reply).
        case answered(Data)
        case failed(Response)
    }

    /// Sends a request to a service and reads its reply. Every failure becomes the API's error: 504 when the service
    /// does not answer in time, 503 when the request cannot be sent, 502 for a reply that is not a JSON object, and
    /// the service's own error as 400 (`badRequest`), 404 (`notFound`) or 503 (anything else, such as `unavailable`).
    private func ask(_ service: RequestedService, _ topic: String, _ body: some Encodable & Sendable) async -> Answer {
        let reply: Data
        do {
            switch try await requester.request(topic, body) {
            case .timedOut:
                return .failed(
                    JSONResponse.error(
                        "timeout", "\(service.name) did not answer within \(timeoutText) s\(service.silenceHint)", status: .gatewayTimeout))
            case .reply(let data): reply = data
            }
        } catch {
            return .failed(
                JSONResponse.error(
                    "busUnavailable", "the request to \(service.name) could not be sent: \(error)", status: .serviceUnavailable))
        }
        guard let object = (try? JSONSerialization.jsonObject(with: reply)) as? [String: Any] else {
            return .failed(JSONResponse.error("badGateway", "\(service.name)'s reply could not be read", status: .badGateway))
        }
        if let failure = object["error"] as? [String: Any] {
            let code = failure["code"] as? String ?? "badRequest"
            let status: HTTPResponse.Status =
                switch code {
                case "badRequest": .badRequest
                case "notFound": .notFound
                default: .serviceUnavailable
                }
            return .failed(JSONResponse.error(code, failure["message"] as? String ?? code, status: status))
        }
        return .answered(reply)
    }

    // MARK: The journal's walks

    /// The longest walk id asked about.
    private static let maximumWalkID = 100

    /// `GET /api/devices/{id}/walks[?limit=N]`: the device's walks, newest first (the journal's reply, each walk
    /// with its title, distance, date and GPX link in words).
    private func walks(_ request: Request, _ context: BasicRequestContext) async -> Response {
        let device = context.parameters.get("device") ?? ""
        guard DeviceID.isValid(device) else {
            return JSONResponse.error("badRequest", "invalid device id '\(device)'", status: .badRequest)
        }
        var body = WalksRequest(device: device)
        if let text = request.uri.queryParameters.get("limit") {
            guard let limit = Int(text) else {
                return JSONResponse.error("badRequest", "limit must be a whole number, got '\(text.prefix(20))'", status: .badRequest)
            }
            body.limit = limit
        }
        switch await ask(.journal, topics.journalWalks, body) {
        case .failed(let response): return response
        case .answered(let data):
            guard let reply = try? WalksReply.decode(Array(data)), let walks = reply.walks else {
                return JSONResponse.error("badGateway", "the journal service's list of walks could not be read", status: .badGateway)
            }
            return JSONResponse.make(WalkListView(device: device, walks: walks))
        }
    }

    /// `GET /api/devices/{id}/walks/{walk}`: the walk, its route and its photo points (newest first), and
    /// `GET /api/devices/{id}/walks/{walk}.gpx`: the walk as a GPX download.
    private func walk(_ context: BasicRequestContext) async -> Response {
        let device = context.parameters.get("device") ?? ""
        guard DeviceID.isValid(device) else {
            return JSONResponse.error("badRequest", "invalid device id '\(device)'", status: .badRequest)
        }
        var id = context.parameters.get("walk") ?? ""
        let gpx = id.hasSuffix(".gpx")
        if gpx { id.removeLast(4) }
        guard Self.isWalkID(id) else {
            return JSONResponse.error(
                "badRequest", "invalid walk id '\(id.prefix(40))': 1 to \(Self.maximumWalkID) of A-Z a-z 0-9 _ -", status: .badRequest)
        }
        let body = WalksRequest(device: device, walk: id, format: gpx ? "gpx" : "json")
        switch await ask(.journal, topics.journalWalks, body) {
        case .failed(let response): return response
        case .answered(let data):
            let reply = try? WalksReply.decode(Array(data))
            if gpx {
                guard let text = reply?.gpx else {
                    return JSONResponse.error("badGateway", "the journal service's GPX reply could not be read", status: .badGateway)
                }
                return Response(
                    status: .ok,
                    headers: [
                        .contentType: "application/gpx+xml",
                        .contentDisposition: "attachment; filename=\"\(device)-\(id).gpx\"",
                        .cacheControl: "no-store",
                    ],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
            }
            guard let reply, let walk = reply.walk else {
                return JSONResponse.error("badGateway", "the journal service's walk reply could not be read", status: .badGateway)
            }
            return JSONResponse.make(WalkDetailView(device: device, walk: walk, route: reply.route ?? [], points: reply.points ?? []))
        }
    }

    /// A walk id as the dashboard passes it on: letters, digits, `_` and `-` (the journal's are UUIDs).
    static func isWalkID(_ id: String) -> Bool {
        (1...maximumWalkID).contains(id.utf8.count)
            && id.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "_", "-": true
                default: false
                }
            }
    }
}
