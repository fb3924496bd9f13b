import Foundation
import Hummingbird
import NIOCore

/// Small builders for the API's JSON answers.
enum JSONResponse {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// `value` as JSON with the given status.
    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        return bytes(Array(data), status: status)
    }

    /// The API's error shape: `{"error": {"code", "message"}}`.
    static func error(_ code: String, _ message: String, status: HTTPResponse.Status) -> Response {
        make(["error": ["code": code, "message": message]], status: status)
    }

    private static func bytes(_ bytes: [UInt8], status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
