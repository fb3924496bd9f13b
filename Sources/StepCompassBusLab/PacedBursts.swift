import Foundation
import StepCompassContract

/// How the load tools publish: each client, on a thread of its own, writes one tick of its share of the devices as
/// ready-made MQTT packets in one `send`, tick k due at `start + k / rate` and stamped with that time.
enum PacedBursts {
    /// Publishes `ticks` ticks through `clients`, client i writing the devices of `shares[i]`; `append` adds one
    /// device's packet for a tick (its index, the tick, the tick's timestamp as UTF-8) to the burst.
    /// - Returns: The messages sent and the worst lateness of a publisher, seconds.
    static func publish(
        clients: [RawMQTTClient], shares: [[Int]], label: String, start: Double, rate: Double, ticks: Int,
        bytesPerPacket: Int,
        append: @escaping @Sendable (_ device: Int, _ tick: Int, _ stamp: [UInt8], _ packets: inout [UInt8]) -> Void
    ) async throws -> (sent: Int, late: Double) {
        try await withThrowingTaskGroup(of: (sent: Int, late: Double).self) { group in
            for (index, share) in shares.enumerated() {
                let publisher = clients[index]
                group.addTask {
                    try await RawMQTTClient.onThread("\(label)-pub-\(index)") {
                        var sent = 0
                        var late = 0.0
                        var packets = [UInt8]()
                        packets.reserveCapacity(share.count * bytesPerPacket)
                        for tick in 0..<ticks {
                            let due = start + Double(tick) / rate
                            let wait = due - Date().timeIntervalSince1970
                            if wait > 0 { Thread.sleep(forTimeInterval: wait) } else { late = max(late, -wait) }
                            let stamp = Array(Timestamp.format(secondsSince1970: due).utf8)
                            packets.removeAll(keepingCapacity: true)
                            for device in share { append(device, tick, stamp, &packets) }
                            try publisher.send(packets)
                            sent += share.count
                        }
                        return (sent, late)
                    }
                }
            }
            var total = (sent: 0, late: 0.0)
            for try await result in group { total = (total.sent + result.sent, max(total.late, result.late)) }
            return total
        }
    }
}
