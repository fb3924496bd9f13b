import Bus
import DashboardKit
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceRuntime

/// The dashboard's HTTP interface: the page, its event stream, the state, and the commands it sends.
///
/// Every command is checked here and published on the bus as the contract's command; the services do
/// the work and the change comes back through the event stream, so the page never assumes an outcome.
struct DashboardRoutes: Sendable {
    let hub: DashboardHub
    let files: StaticFiles
    let bus: any MessageBus
    let topics: Topics
    let configuration: DashboardConfiguration
    let logger: Logger

    /// The largest command body read.
    private static let maxBody = 16 * 1024

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/") { _, _ in serve("index.html") }
        router.get("/healthz") { _, _ in JSONResponse.make(["status": "ok"]) }
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
        router.post("/api/markers/refresh") { _, _ in
            await publish(BusMessage(topic: topics.markersRefresh, payload: Data("{}".utf8), qos: .atLeastOnce))
        }
        router.get("/api/devices/:device/history") { request, context in
            await history(request, context)
        }
        router.get("/api/markers/:marker/nearest") { request, context in
            await nearest(request, context)
        }
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
            return JSONResponse.error("badRequest", "invalid device id '\(device)': 1 to 64 of A-Z a-z 0-9 _ -, not a reserved name", status: .badRequest)
        }
        var request = request
        let body: [String: Any]
        do {
            let buffer = try await request.collectBody(upTo: Self.maxBody)
            let bytes = Data(buffer.readableBytesView)
            let object = bytes.isEmpty ? [String: Any]() : try JSONSerialization.jsonObject(with: bytes)
            guard let dictionary = object as? [String: Any] else {
                return JSONResponse.error("badRequest", "the body must be a JSON object", status: .badRequest)
            }
            body = dictionary
        } catch {
            return JSONResponse.error("badRequest", "the body is not JSON of at most \(Self.maxBody) bytes", status: .badRequest)
        }
        let command: DeviceCommand
        do {
            command = try DeviceCommand.decode(topic, body: body)
        } catch {
            return JSONResponse.error("badRequest", error.message, status: .badRequest)
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
        let client = NearestClient(bus: bus, topics: topics, timeout: .milliseconds(Int(configuration.requestTimeout * 1000)))
        do {
            switch try await client.nearest(markerID: marker, count: count) {
            case .timedOut:
                let seconds = DisplayText.decimal(configuration.requestTimeout, places: 0)
                return JSONResponse.error("timeout", "the marker service did not answer within \(seconds) s", status: .gatewayTimeout)
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
        let from = query.get("from").map { String($0) }
            ?? Timestamp.format((Timestamp.parse(to) ?? Date()).addingTimeInterval(-defaultSpan))
        let csv = query.get("format") == "csv"
        let client = HistoryClient(bus: bus, topics: topics, timeout: .milliseconds(Int(configuration.requestTimeout * 1000)))
        let reply: Data
        do {
            switch try await client.history(device: device, from: from, to: to, granularity: granularity) {
            case .timedOut:
                let seconds = DisplayText.decimal(configuration.requestTimeout, places: 0)
                return JSONResponse.error("timeout", "the activity service did not answer within \(seconds) s", status: .gatewayTimeout)
            case .reply(let data): reply = data
            }
        } catch {
            return JSONResponse.error("busUnavailable", "the history request could not be sent: \(error)", status: .serviceUnavailable)
        }
        guard let object = (try? JSONSerialization.jsonObject(with: reply)) as? [String: Any] else {
            return JSONResponse.error("badGateway", "the activity service's reply could not be read", status: .badGateway)
        }
        if let failure = object["error"] as? [String: Any] {
            let code = failure["code"] as? String ?? "badRequest"
            let status: HTTPResponse.Status = code == "badRequest" ? .badRequest : .serviceUnavailable
            return JSONResponse.error(code, failure["message"] as? String ?? code, status: status)
        }
        guard csv else {
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply)))
        }
        var text = "start,steps\n"
        for bucket in object["buckets"] as? [[String: Any]] ?? [] {
            text += "\(bucket["start"] as? String ?? ""),\((bucket["steps"] as? NSNumber)?.int64Value ?? 0)\n"
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8",
                .contentDisposition: "attachment; filename=\"\(device)-\(granularity).csv\"",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
