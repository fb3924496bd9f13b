public import NIOCore
public import NIOHTTP1
import NIOPosix
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 (a free port below the ephemeral range) whose every answer a test scripts,
/// including the broken ones: silence, truncated bodies, endless bodies, redirect loops, a closed connection.
public final class TestHTTPServer: Sendable {
    /// One request as the server saw it.
    public struct Request: Sendable {
        public var path: String
        public var headers: [(String, String)]
        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    /// What to do with a request.
    public enum Reply: Sendable {
        /// A complete response.
        case respond(status: HTTPResponseStatus, headers: [(String, String)], body: [UInt8])
        /// Accept the request and never answer.
        case hang
        /// Declare `declaredLength` bytes, send `body` (shorter), then close the connection.
        case truncated(declaredLength: Int, body: [UInt8])
        /// A chunked body that never ends (until the client goes away).
        case endless
        /// Close the connection without a word (the client sees the connection reset or closed).
        case close
        /// `reply`, after `milliseconds` (a server far away).
        indirect case delayed(milliseconds: Int64, Reply)

        public static func document(_ text: String, headers: [(String, String)] = []) -> Reply {
            .respond(status: .ok, headers: [("Content-Type", "application/geo+json")] + headers, body: Array(text.utf8))
        }

        public static func status(_ status: HTTPResponseStatus) -> Reply {
            .respond(status: status, headers: [], body: Array("\(status.code)".utf8))
        }

        public static func redirect(to location: String) -> Reply {
            .respond(status: .found, headers: [("Location", location)], body: [])
        }
    }

    public typealias Route = @Sendable (_ request: Request, _ index: Int) -> Reply

    private let channel: any Channel
    private let recorded: Mutex<[Request]>
    public let port: Int

    /// Every request received so far.
    public var requests: [Request] { recorded.withLock { $0 } }

    /// The base URL, e.g. `http://127.0.0.1:54321`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private init(channel: any Channel, port: Int) {
        self.channel = channel
        self.recorded = Mutex([])
        self.port = port
    }

    /// Starts a server; `route` gets each request and its number (from 0).
    /// - Parameters:
    ///   - host: The address to listen on (`127.0.0.1`).
    ///   - port: A fixed port; nil draws a free one below the ephemeral range.
    public static func start(host: String = "127.0.0.1", port fixed: Int? = nil, route: @escaping Route) async throws -> TestHTTPServer {
        let log = RequestLog()
        var attempt = 0
        var bound: (any Channel)?
        while bound == nil {
            attempt += 1
            do {
                bound = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .childChannelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                            try channel.pipeline.syncOperations.addHandler(Handler(route: route, log: log))
                        }
                    }
                    .bind(host: host, port: fixed ?? MosquittoBrokerProcess.freePort())
                    .get()
            } catch  where attempt < 20 && fixed == nil {
                continue  // taken between the check and the bind: draw another
            }
        }
        guard let channel = bound else { throw CancellationError() }
        let port = channel.localAddress?.port ?? 0
        let server = TestHTTPServer(channel: channel, port: port)
        log.server.withLock { $0 = server }
        return server
    }

    func record(_ request: Request) -> Int {
        recorded.withLock { list in
            list.append(request)
            return list.count - 1
        }
    }

    /// Stops listening.
    public func shutdown() async {
        try? await channel.close()
    }

    private final class RequestLog: Sendable {
        let server = Mutex<TestHTTPServer?>(nil)
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let route: Route
        let log: RequestLog
        var head: HTTPRequestHead?

        init(route: @escaping Route, log: RequestLog) {
            self.route = route
            self.log = log
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
            case .body:
                break
            case .end:
                guard let head else { return }
                let request = Request(path: head.uri, headers: head.headers.map { ($0.name, $0.value) })
                let index = log.server.withLock { $0?.record(request) } ?? 0
                reply(route(request, index), context: context)
            }
        }

        private func reply(_ reply: Reply, context: ChannelHandlerContext) {
            switch reply {
            case .respond(let status, let extra, let body):
                var headers = HTTPHeaders(extra)
                headers.replaceOrAdd(name: "Content-Length", value: "\(body.count)")
                context.write(
                    wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                    promise: nil)
                if !body.isEmpty {
                    context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
                }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            case .hang:
                break
            case .close:
                context.close(promise: nil)
            case .delayed(let milliseconds, let later):
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: .milliseconds(milliseconds)) {
                    let (handler, context) = bound.value
                    handler.reply(later, context: context)
                }
            case .truncated(let declared, let body):
                let headers = HTTPHeaders([("Content-Length", "\(declared)"), ("Content-Type", "application/json")])
                context.write(
                    wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
                    promise: nil)
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
                context.close(promise: nil)
            case .endless:
                let headers = HTTPHeaders([("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")])
                context.write(
                    wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
                    promise: nil)
                context.writeAndFlush(
                    wrapOutboundOut(
                        .body(.byteBuffer(ByteBuffer(string: #"{"type":"FeatureCollection","features":["#)))),
                    promise: nil)
                writeForever(context: context)
            }
        }

        /// Writes 64 KiB chunks one after another until a write fails (the client went away).
        private func writeForever(context: ChannelHandlerContext) {
            let chunk = ByteBuffer(repeating: UInt8(ascii: " "), count: 64 * 1024)
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk)))).whenSuccess {
                let (handler, context) = bound.value
                handler.writeForever(context: context)
            }
        }
    }
}
