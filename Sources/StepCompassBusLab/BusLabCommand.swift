import ArgumentParser
import Bus
import Foundation
import Logging
import MosquittoBus

/// `stepcompass-buslab`: the project's load tool for the MQTT bus.
@main
struct BusLabCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepcompass-buslab",
        abstract: "Load tool for the StepCompass MQTT bus.",
        subcommands: [
            Throughput.self, Conformance.self, CompassLoad.self, DetectorLoad.self, BridgeLoad.self, CodecBench.self, ActivityLoad.self,
            HistoryQueryBench.self, PhotoServer.self, JournalLoad.self, MarkersLoad.self,
            MarkersBench.self, DeviceFlood.self, StepAccuracy.self, BadFlood.self, Chaos.self, PositionLoad.self, SensorsLoad.self, MemoryIdle.self,
        ])
}

/// Publish → receive throughput through a broker: one publishing and one subscribing client.
struct Throughput: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure publish → receive throughput (messages/s) and losses through a broker.")

    @Option(help: "Broker host.") var host = "127.0.0.1"
    @Option(help: "Broker port.") var port = 1883
    @Option(help: "QoS of the messages (0, 1 or 2).") var qos = 0
    @Option(help: "Number of messages.") var count = 200_000
    @Option(help: "Payload size in bytes.") var size = 100
    @Option(help: "Publish window: most unacknowledged messages in flight.") var inflight = 1_000
    @Option(help: "Seconds to wait for the last message.") var timeout = 60.0
    @Flag(help: "Print one JSON line instead of text.") var json = false

    func run() async throws {
        guard let qos = QoS(rawValue: qos) else { throw ValidationError("--qos must be 0, 1 or 2") }
        var logger = Logger(label: "buslab")
        logger.logLevel = .warning
        let run = UUID().uuidString.prefix(8)
        let topic = "buslab/\(run)"
        func client(_ role: String) throws -> MosquittoBus {
            try MosquittoBus(
                configuration: MosquittoConfiguration(
                    host: host, port: port, clientID: "buslab-\(role)-\(run)", cleanStart: true, maxInflight: inflight),
                logger: logger)
        }
        let subscriber = try client("sub")
        let publisher = try client("pub")
        try await subscriber.connect()
        try await publisher.connect()
        let subscription = try await subscriber.subscribe(to: try TopicFilter(topic), qos: qos)
        let payload = Data(repeating: UInt8(ascii: "x"), count: size)
        let clock = ContinuousClock()
        let start = clock.now
        let total = count
        let limit = Duration.seconds(timeout)
        let receiving = Task { () -> (Int, Duration) in
            var received = 0
            var last = start
            for await _ in subscription {
                received += 1
                last = clock.now
                if received == total { break }
            }
            return (received, last - start)
        }
        let watchdog = Task {
            try await Task.sleep(for: limit)
            await subscriber.disconnect()
        }
        for _ in 0..<count {
            try await publisher.publish(BusMessage(topic: topic, payload: payload, qos: qos))
        }
        try await publisher.flush()
        let (received, elapsed) = await receiving.value
        watchdog.cancel()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(received) / seconds : 0
        if json {
            print(
                #"{"client":"swift","qos":\#(qos.rawValue),"sent":\#(count),"received":\#(received),"seconds":\#(seconds),"rate":\#(Int(rate)),"peakInflight":\#(publisher.peakInflight)}"#
            )
        } else {
            print(
                "swift bus QoS \(qos.rawValue): \(received)/\(count) received in \(String(format: "%.2f", seconds)) s = \(Int(rate)) msg/s (peak in flight \(publisher.peakInflight))"
            )
        }
        await publisher.disconnect()
        await subscriber.disconnect()
        if received != count { throw ExitCode(2) }
    }
}
