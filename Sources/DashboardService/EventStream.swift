import Hummingbird
import Logging
import NIOCore

/// One browser's Server-Sent Events: a full snapshot first, then what changed, at most `maxRate`
/// writes a second, with a keep-alive comment every 15 s (which also notices a closed connection).
struct EventStream: Sendable {
    let hub: DashboardHub
    let requestedDevice: String?
    let maxRate: Double
    let logger: Logger

    func write(to writer: inout any ResponseBodyWriter) async throws {
        let mailbox = EventMailbox(requestedDevice: requestedDevice)
        await hub.register(mailbox)
        let keepAlive = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(15))
                mailbox.post([.keepAlive])
            }
        }
        defer { keepAlive.cancel() }
        let interval = Duration.milliseconds(Int(1000 / maxRate))
        do {
            // "retry" tells EventSource how soon to reconnect after the stream drops.
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
            for await _ in mailbox.wakeUps {
                let kinds = mailbox.take()
                var text = await hub.events(kinds, for: mailbox).map(\.text).joined()
                if kinds.contains(.keepAlive) { text += ServerSentEvent.keepAlive }
                if !text.isEmpty { try await writer.write(ByteBuffer(string: text)) }
                try await Task.sleep(for: interval)
            }
        } catch {
            logger.debug("event stream closed", metadata: ["error": "\(error)"])
        }
        await hub.unregister(mailbox)
        try? await writer.finish(nil)
    }
}
