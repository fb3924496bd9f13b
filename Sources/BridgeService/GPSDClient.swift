import Logging
import NIOCore
import NIOPosix
import PhoneFormats
public import ServiceLifecycle
import ServiceRuntime

/// Reads a gpsd (`--gpsd HOST:PORT`): sends `?WATCH={"enable":true,"json":true}` and turns each TPV report with a
/// fix (mode 2 or 3) into the device's `location`. A report without a fix (mode 0 or 1) publishes nothing; the
/// log says when the fix is lost and found again. A connection that fails or closes is tried again with backoff
/// (0.5 s doubling to 10 s).
public struct GPSDClient: Service {
    let host: String
    let port: Int
    let device: String
    let ingest: PhoneIngest
    let context: BusServiceContext

    public func run() async throws {
        try await context.serve { try await self.loop() }
    }

    private func loop() async throws {
        var delay = 0.5
        var reported = false
        while !Task.isCancelled {
            do {
                let fixes = try await session()
                delay = 0.5
                reported = false
                context.logger.notice("gpsd closed the connection; reconnecting", metadata: ["gpsd": "\(host):\(port)", "gpsd.fixes": "\(fixes)"])
            } catch is CancellationError {
                return
            } catch {
                if !reported {
                    context.logger.warning("cannot read gpsd; retrying with backoff", metadata: ["gpsd": "\(host):\(port)", "error": "\(error)"])
                    reported = true
                }
            }
            try await Task.sleep(for: .milliseconds(Int(delay * 1_000)))
            delay = min(delay * 2, 10)
        }
    }

    /// One connection: returns the number of fixes published when gpsd closes it.
    private func session() async throws -> Int {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        context.logger.info("reading gpsd", metadata: ["gpsd": "\(host):\(port)", "device": "\(device)"])
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: GPSDReport.watchCommand + "\n"))
            var lines = GPSDLineBuffer()
            var fixes = 0
            var hasFix: Bool?
            for try await buffer in inbound {
                for line in lines.append(Array(buffer.readableBytesView)) {
                    let report: GPSDReport
                    do {
                        report = try GPSDReport.decode(line: line)
                    } catch {
                        context.logger.notice("skipped an unreadable gpsd report", metadata: ["reason": "\(error)"])
                        continue
                    }
                    switch report {
                    case .fix(let fix):
                        if hasFix != true { context.logger.info("gpsd has a fix", metadata: ["device": "\(device)"]) }
                        hasFix = true
                        try await ingest.location(device: device, fix)
                        ingest.metrics?.batch(.gpsd)
                        fixes += 1
                    case .noFix:
                        if hasFix != false {
                            context.logger.notice("gpsd has no fix: no location is published until it has one", metadata: ["device": "\(device)"])
                        }
                        hasFix = false
                    case .ignored:
                        break
                    }
                }
            }
            return fixes
        }
    }
}
