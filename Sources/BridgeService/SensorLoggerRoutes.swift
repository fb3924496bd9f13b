import Bus
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PhoneFormats
import ServiceRuntime

/// The HTTP push endpoint Sensor Logger posts to (`POST /sensor-logger`), and `GET /healthz`.
///
/// The device id is the `device` query parameter, else the body's `deviceId` made valid for the contract
/// (stable: the same phone always gets the same id). `platform=android|ios|ios-standardised` says how the phone
/// reports acceleration (Sensor Logger on iOS negates it unless "Standardise Units & Frames" is on); without it the
/// bridge recognises the platform from the data (Android's `totalacceleration`, iOS's uncalibrated accelerometer in
/// g or its `altitudeAboveMeanSeaLevel`) and assumes Android after 2 s without evidence. A good body gets 200 and a one-line JSON summary; a bad one
/// gets 400 with a one-line reason (the app shows it) and a report on `stepcompass/errors/bridge`; a missing or
/// wrong token gets 401; a request a browser sent for a web page (with `Origin` or `Sec-Fetch-Site`) gets 403.
struct SensorLoggerRoutes: Sendable {
    let ingest: PhoneIngest
    let authorization: PushAuthorization
    let maxBody: Int
    let errors: ErrorReporter
    let logger: Logger

    private static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        // Requests by route and status, and their duration (swift-metrics; served with --metrics-port): first, so
        // it sees every route, unknown ones included.
        router.add(middleware: MetricsMiddleware())
        router.get("/healthz") { _, _ in Self.text("ok\n", status: .ok) }
        router.post("/sensor-logger") { request, _ in await push(request) }
        return router
    }

    private func push(_ request: Request) async -> Response {
        // Phones push from an app, never from a web page. A page the user visits may still post here (a form, a
        // no-cors fetch, a name re-pointed at 127.0.0.1), which its browser marks with Origin or Sec-Fetch-Site:
        // refused, so no web page can feed a device's steps or location.
        if let site = request.headers[Self.secFetchSite], site.lowercased() != "none" {
            return Self.text("pushes come from phone apps, not from web pages (Sec-Fetch-Site: \(site.prefix(20)))\n", status: .forbidden)
        }
        if let origin = request.headers[.origin] {
            return Self.text("pushes come from phone apps, not from web pages (Origin: \(origin.prefix(60)))\n", status: .forbidden)
        }
        let query = request.uri.queryParameters
        let presented = PushAuthorization.presented(
            authorization: request.headers[.authorization], query: query.get("token"))
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maxBody)
        } catch {
            return await reject("the body is larger than \(maxBody) bytes", bytes: [], device: nil, status: .contentTooLarge)
        }
        let bytes = Array(buffer.readableBytesView)
        let message: SensorLoggerMessage
        do {
            message = try SensorLoggerMessage.decode(bytes, limits: .init(maximumBytes: maxBody))
        } catch {
            // Without a valid token, say no more than that.
            guard authorization.allows(presented, device: query.get("device") ?? "") else {
                return Self.unauthorized()
            }
            return await reject(error.reason, bytes: bytes, device: query.get("device"), status: .badRequest)
        }
        let requested: String? = query.get("device").map { String($0) }
        if let requested, !DeviceID.isValid(requested) {
            return await reject(
                "the device parameter '\(requested.prefix(70))' is not a valid device id (1-64 of A-Z a-z 0-9 _ -)", bytes: bytes, device: nil,
                status: .badRequest)
        }
        let device = requested ?? DeviceID.sanitized(message.deviceId ?? "sensor-logger")
        var convention: SensorLoggerConvention?
        switch query.get("platform").map({ String($0).lowercased() }) {
        case nil: convention = nil
        case "android": convention = .android
        case "ios": convention = .iOSDefault
        case "ios-standardised", "ios-standardized": convention = .iOSStandardised
        case let other?:
            return await reject(
                "the platform parameter '\(other.prefix(30))' must be android, ios or ios-standardised", bytes: bytes,
                device: requested, status: .badRequest)
        }
        guard authorization.allows(presented, device: device) else { return Self.unauthorized() }
        do {
            let outcome = try await ingest.sensorLogger(device: device, message, convention: convention)
            ingest.metrics?.batch(.sensorLoggerHTTP)
            let text =
                #"{"status":"ok","device":"\#(device)","imu":\#(outcome.imu),"accelerationOnly":\#(outcome.accelerationOnly),"location":\#(outcome.locations),"steps":\#(outcome.steps),"ignored":\#(message.ignoredCount)}"#
            return Response(
                status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
        } catch {
            logger.warning("could not publish a phone's samples", metadata: ["device": "\(device)", "error": "\(error)"])
            return Self.text("the broker is unreachable; try again\n", status: .serviceUnavailable)
        }
    }

    private func reject(_ reason: String, bytes: [UInt8], device: String?, status: HTTPResponse.Status) async -> Response {
        let topic = "POST /sensor-logger" + (device.map { "?device=\($0)" } ?? "")
        await errors.reject(BusMessage(topic: topic, payload: Data(bytes.prefix(256)), qos: .atMostOnce), reason: reason)
        return Self.text(reason.replacingOccurrences(of: "\n", with: " ") + "\n", status: status)
    }

    private static func unauthorized() -> Response {
        Response(
            status: .unauthorized,
            headers: [.contentType: "text/plain; charset=utf-8", .wwwAuthenticate: #"Basic realm="stepcompass-bridge""#],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "a valid token is required (HTTP basic password, bearer token, or ?token=)\n")))
    }

    private static func text(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
