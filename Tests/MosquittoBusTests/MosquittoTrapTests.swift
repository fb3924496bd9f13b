import Bus
import BusTesting
import CMosquitto
import Foundation
import Logging
import Testing

@testable import MosquittoBus

/// The libmosquitto traps the wrapper exists to avoid, each shown against a real broker.
@Suite("libmosquitto traps", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct MosquittoTrapTests {
    static func client(_ port: Int, _ id: String, maxInflight: Int = 1_000, tcpNoDelay: Bool = true, cleanStart: Bool = true)
        async throws -> MosquittoBus
    {
        let configuration = MosquittoConfiguration(
            host: "127.0.0.1", port: port, clientID: id, cleanStart: cleanStart, maxInflight: maxInflight,
            tcpNoDelay: tcpNoDelay, reconnectDelay: .milliseconds(50), reconnectDelayMax: .milliseconds(200))
        let bus = try MosquittoBus(configuration: configuration, logger: Logger(label: "test.\(id)"))
        try await bus.connect(timeout: .seconds(10))
        return bus
    }

    @Test("mosquitto_lib_init runs once however many clients start at once")
    func libraryInitialisedOnce() async throws {
        try await withBroker { broker in
            let clients = try await withThrowingTaskGroup(of: MosquittoBus.self) { group in
                for index in 0..<16 { group.addTask { try await Self.client(broker.port, "init-\(index)") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(clients.count == 16)
            #expect(MosquittoLibrary.initializationCount == 1)
            for client in clients { await client.disconnect() }
        }
    }

    @Test("received payloads are copied before libmosquitto frees them")
    func payloadsAreCopies() async throws {
        try await withBroker { broker in
            let client = try await Self.client(broker.port, "copy")
            let subscription = try await client.subscribe(to: "copy/#")
            let expected = (0..<3_000).map { index in
                Data((0..<(index % 700 + 1)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
            }
            for (index, payload) in expected.enumerated() {
                try await client.publish(BusMessage(topic: "copy/\(index % 7)", payload: payload, qos: .atMostOnce))
            }
            let received = await subscription.collect(expected.count, timeout: .seconds(20))
            #expect(received.count == expected.count)
            // Compared only after every message has arrived: a payload that still pointed into
            // libmosquitto's freed buffers would have been overwritten by then.
            #expect(received.map(\.payload) == expected)
            await client.disconnect()
        }
    }

    @Test("more than 65,535 QoS 1 publishes: back-pressure keeps packet ids unique and loses nothing")
    func packetIDsDoNotWrap() async throws {
        try await withBroker(configuration: ProjectBrokerConfiguration.tuning) { broker in
            let subscriber = try await Self.client(broker.port, "wrap-sub")
            let subscription = try await subscriber.subscribe(to: "wrap/t", qos: .atLeastOnce)
            let publisher = try await Self.client(broker.port, "wrap-pub", maxInflight: 500)
            let count = 70_000
            let receiving = Task { await subscription.collect(count, timeout: .seconds(120)) }
            for index in 0..<count {
                try await publisher.publish(BusMessage(topic: "wrap/t", text: "\(index)", qos: .atLeastOnce))
            }
            try await publisher.flush()
            let received = await receiving.value
            #expect(received.count == count)
            #expect(received.map(\.text) == (0..<count).map(String.init))
            #expect(publisher.peakInflight <= 500)
            #expect(publisher.peakInflight > 1)
            await publisher.disconnect()
            await subscriber.disconnect()
        }
    }

    @Test("TCP_NODELAY is set on the socket (Nagle adds 40-90 ms to QoS 1/2 round trips)", arguments: [true, false])
    func tcpNoDelay(_ enabled: Bool) async throws {
        try await withBroker { broker in
            let client = try await Self.client(broker.port, "nodelay-\(enabled)", tcpNoDelay: enabled)
            var value: Int32 = -1
            var length = socklen_t(MemoryLayout<Int32>.size)
            let rc = getsockopt(client.socketDescriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length)
            #expect(rc == 0)
            #expect((value != 0) == enabled)
            await client.disconnect()
        }
    }

    @Test("the project's broker configuration keeps 5,000 QoS 1 messages for an offline session; the stock one drops")
    func brokerQueueLimit() async throws {
        for (configuration, keepsAll) in [(ProjectBrokerConfiguration.tuning, true), ("", false)] {
            try await withBroker(configuration: configuration) { broker in
                let offline = try await Self.client(broker.port, "queue-sub", cleanStart: false)
                _ = try await offline.subscribe(to: "queue/t", qos: .atLeastOnce)
                await offline.disconnect()
                let publisher = try await Self.client(broker.port, "queue-pub")
                for index in 0..<5_000 {
                    try await publisher.publish(BusMessage(topic: "queue/t", text: "\(index)", qos: .atLeastOnce))
                }
                try await publisher.flush()
                let back = try await Self.client(broker.port, "queue-sub", cleanStart: false)
                let subscription = try await back.subscribe(to: "queue/t", qos: .atLeastOnce)
                let received = await subscription.collect(5_000, timeout: .seconds(keepsAll ? 20 : 3))
                if keepsAll {
                    #expect(received.count == 5_000)
                } else {
                    #expect(received.count < 5_000, "mosquitto's default max_queued_messages (1000) drops the rest")
                }
                await back.disconnect()
                await publisher.disconnect()
            }
        }
    }

    @Test("after a broker restart the client reconnects, resubscribes and republishes its birth message")
    func reconnectAfterBrokerRestart() async throws {
        try await withBroker(configuration: ProjectBrokerConfiguration.tuning) { broker in
            let client = try await Self.client(broker.port, "phoenix", cleanStart: false)
            let subscription = try await client.subscribe(to: "phoenix/in", qos: .atLeastOnce)
            let birth = BusMessage(topic: "phoenix/status", text: "online", qos: .atLeastOnce, retain: true)
            try await client.publish(birth)
            client.setBirthMessage(birth)
            try await client.flush()
            try await broker.restartAndWait()
            let watcher = try await Self.client(broker.port, "phoenix-watcher")
            let status = try await watcher.subscribe(to: "phoenix/status")
            // The retained status survives the restart through persistence or comes back with the birth message.
            #expect(await status.next(timeout: .seconds(10))?.text == "online")
            var reconnected = false
            let reconnectDeadline = ContinuousClock.now + .seconds(60)  // ends a failing run only
            while !reconnected, ContinuousClock.now < reconnectDeadline {
                reconnected = client.connectCount >= 2 && client.isConnected
                if !reconnected { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(reconnected)
            // Give the resubscription a moment, then publish: the old subscription must receive it.
            var got: BusMessage?
            for attempt in 0..<240 where got == nil {  // up to a minute: the resubscription may wait its turn
                try await watcher.publish(BusMessage(topic: "phoenix/in", text: "after-\(attempt)", qos: .atLeastOnce))
                got = await subscription.next(timeout: .milliseconds(250))
            }
            #expect(got?.text.hasPrefix("after-") == true)
            await watcher.disconnect()
            await client.disconnect()
        }
    }

    @Test("a broker killed before it saved forgets retained messages; the client states again those it keeps after reconnecting")
    func restatedAfterBrokerLostItsStore() async throws {
        try await withBroker(configuration: ProjectBrokerConfiguration.tuning) { broker in
            let client = try await Self.client(broker.port, "owner", cleanStart: false)
            let kept = BusMessage(topic: "owner/permissions", text: "authorized", qos: .atLeastOnce, retain: true)
            let dropped = BusMessage(topic: "owner/other", text: "forgotten", qos: .atLeastOnce, retain: true)
            let stopped = BusMessage(topic: "owner/stopped", text: "no longer kept", qos: .atLeastOnce, retain: true)
            for message in [kept, dropped, stopped] { try await client.publish(message) }
            client.restateAfterReconnect(kept)
            client.restateAfterReconnect(stopped)
            client.stopRestating(topic: stopped.topic)
            try await client.flush()
            let connects = client.connectCount
            await broker.kill9()  // before any autosave: the broker comes back with nothing retained
            try await broker.startAndWait()
            let watcher = try await Self.client(broker.port, "owner-watcher")
            // Subscribed before the owner is back (it waits out its backoff): what arrives is what the reconnect sent.
            let retained = try await watcher.subscribe(to: "owner/#", qos: .atLeastOnce)
            let first = await retained.next(timeout: .seconds(60))
            #expect(first?.topic == kept.topic && first?.text == "authorized")
            #expect(client.connectCount > connects)
            // A late subscriber gets it as retained; the others are gone with the broker's store.
            // The broker sends the retained messages on subscribing, before anything published after: the marker
            // ends them.
            let late = try await Self.client(broker.port, "owner-late")
            let again = try await late.subscribe(to: "owner/#", qos: .atLeastOnce)
            try await late.publish(BusMessage(topic: "owner/end", text: "end", qos: .atLeastOnce))
            var got: [BusMessage] = []
            while let message = await again.next(timeout: .seconds(10)), message.topic != "owner/end" { got.append(message) }
            #expect(got.map(\.topic) == [kept.topic])
            #expect(got.first?.retain == true)
            for bus in [late, watcher, client] { await bus.disconnect() }
        }
    }

    @Test("errors carry libmosquitto's message: a closed port fails with the reason")
    func connectionRefused() async throws {
        try await Self.expectConnectTimeout(port: try MosquittoBrokerProcess.freePort(), within: .milliseconds(500), saying: "Connection refused")
    }

    /// Connects a client to `port`, where no broker answers, and expects the connect to time out within `timeout` with a
    /// message that contains `reason`.
    static func expectConnectTimeout(port: Int, within timeout: Duration, saying reason: String) async throws {
        let configuration = MosquittoConfiguration(
            host: "127.0.0.1", port: port, clientID: "nobody", reconnectDelay: .milliseconds(50))
        let bus = try MosquittoBus(configuration: configuration, logger: Logger(label: "test.unanswered"))
        await #expect {
            try await bus.connect(timeout: timeout)
        } throws: { error in
            guard let error = error as? BusError else { return false }
            return error.code == .timeout && error.message.contains(reason)
        }
        await bus.disconnect()
    }

    @Test(
        "a client whose socket is numbered 1,024 or above (a process with many files open) connects and gets its messages",
        .enabled(if: ManyDescriptors.possible, "needs a descriptor limit above 1,200"))
    func descriptorAboveSelectLimit() async throws {
        // mosquitto_loop waits with select(), which fails on such a socket: the connect timed out with "no answer".
        let held = try ManyDescriptors(count: 1_100)
        defer { held.close() }
        try await withBroker { broker in
            let bus = try await Self.client(broker.port, "high-descriptor")
            #expect(bus.socketDescriptor >= 1_024, "socket \(bus.socketDescriptor)")
            let subscription = try await bus.subscribe(to: TopicFilter("high/#"))
            try await bus.publish(BusMessage(topic: "high/one", text: "1", qos: .atLeastOnce))
            #expect(await subscription.next(timeout: .seconds(10))?.text == "1")
            await bus.disconnect()
        }
    }

    @Test("a server that takes the connection and closes it fails the connect with 'connection lost', not 'no answer'")
    func closedBeforeAnswering() async throws {
        let listener = try ClosingListener()
        defer { listener.stop() }
        try await Self.expectConnectTimeout(port: listener.port, within: .seconds(1), saying: "the connection was lost")
        #expect(listener.accepted > 0, "the client reached the listener")
    }

    @Test("every libmosquitto error code has a message")
    func errorMessages() {
        let codes = (Int32(MOSQ_ERR_NOMEM.rawValue)...Int32(MOSQ_ERR_ALREADY_EXISTS.rawValue))
        for code in codes {
            let error = MosquittoError(code: code, function: "mosquitto_test")
            if code != Int32(MOSQ_ERR_UNKNOWN.rawValue) {
                #expect(!error.message.isEmpty && error.message != "Unknown error.", "code \(code)")
            }
            #expect(error.description.contains("mosquitto_test"))
        }
        #expect(MosquittoError(code: Int32(MOSQ_ERR_CONN_REFUSED.rawValue), function: "f").busError.code == .connectionFailed)
        #expect(MosquittoError.describe(reasonCode: 135) == "Not authorized")
    }
}

/// Descriptors held open (copies of /dev/null) so that the next socket of the process is numbered above them.
struct ManyDescriptors {
    private var descriptors: [Int32] = []

    /// Whether the process may hold enough descriptors (the soft limit is raised to the hard one when needed).
    static var possible: Bool {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return false }
        if limit.rlim_cur < 4_096 && limit.rlim_max > limit.rlim_cur {
            limit.rlim_cur = min(limit.rlim_max, 4_096)
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return limit.rlim_cur > 1_200
    }

    init(count: Int) throws {
        for _ in 0..<count {
            let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                close()
                throw POSIXError(.EMFILE)
            }
            descriptors.append(descriptor)
        }
    }

    func close() {
        for descriptor in descriptors { Glibc.close(descriptor) }
    }
}

/// A loopback TCP listener that accepts each connection and closes it at once, on a thread of its own.
final class ClosingListener: @unchecked Sendable {
    let port: Int
    private let descriptor: Int32
    private let count = LockedValue(0)

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        let chosen = try MosquittoBrokerProcess.freePort()
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(chosen).bigEndian
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 && listen(fd, 16) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        descriptor = fd
        port = chosen
        let thread = Thread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }  // the listener was shut down
                count.withLock { $0 += 1 }
                close(client)
            }
        }
        thread.start()
    }

    var accepted: Int { count.withLock { $0 } }

    func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }
}
