import Bus
import CMosquitto
import Foundation
import Logging
import Synchronization

extension MosquittoBus {
    /// Applies the configuration to the libmosquitto handle (before the first connect).
    func configure() throws(MosquittoError) {
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        // Other threads publish and subscribe while the network thread runs the loop (loopOnce).
        try MosquittoError.check(mosquitto_threaded_set(handle, true), "mosquitto_threaded_set")
        let version = configuration.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try MosquittoError.check(
            mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(version)), "mosquitto_int_option(protocol)")
        // libmosquitto sends at most 20 QoS 1/2 messages at a time by default and queues the rest; let the
        // publish window be the limit instead (the broker's receive maximum still applies on MQTT 5).
        let inflight = Int32(min(configuration.maxInflight, 65_535))
        try MosquittoError.check(mosquitto_int_option(handle, MOSQ_OPT_SEND_MAXIMUM, inflight), "mosquitto_int_option(SEND_MAXIMUM)")
        try MosquittoError.check(mosquitto_int_option(handle, MOSQ_OPT_RECEIVE_MAXIMUM, inflight), "mosquitto_int_option(RECEIVE_MAXIMUM)")
        if configuration.tcpNoDelay {
            try MosquittoError.check(mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1), "mosquitto_int_option(TCP_NODELAY)")
        }
        if configuration.username != nil || configuration.password != nil {
            try MosquittoError.check(
                mosquitto_username_pw_set(handle, configuration.username, configuration.password), "mosquitto_username_pw_set")
        }
        if let tls = configuration.tls {
            try MosquittoError.check(
                mosquitto_tls_set(handle, tls.caFile, nil, tls.certificateFile, tls.keyFile, nil), "mosquitto_tls_set")
        }
        if let will = configuration.will {
            let rc = will.payload.withUnsafeBytes { raw in
                mosquitto_will_set_v5(
                    handle, will.topic, Int32(raw.count), raw.baseAddress, Int32(will.qos.rawValue), will.retain, nil)
            }
            try MosquittoError.check(rc, "mosquitto_will_set_v5")
        }
        installCallbacks()
    }

    func startNetworkThread() {
        let start = state.withLock { state -> Bool in
            guard !state.threadStarted else { return false }
            state.threadStarted = true
            state.phase = .connecting
            return true
        }
        guard start else { return }
        let name = Self.networkThreadName(clientID: clientID)
        let thread = Thread { [self] in
            Self.nameCurrentThread(name)
            networkLoop()
        }
        thread.name = name
        thread.start()
    }

    /// Gives the calling thread `name` in the kernel. Foundation's `Thread.name` does not reach it on Linux, and
    /// `pthread_setname_np` is not in Swift's Glibc module; the thread's own `comm` file is the same call.
    private static func nameCurrentThread(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        _ = name.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
    }

    /// The network thread's name as `top -H` and `ps -L` show it: `mqtt` and the client id without the project's
    /// `stepcompass-` prefix (`mqtt position`), cut to Linux's 15 bytes (a longer name is refused, and the thread
    /// keeps its parent's).
    static func networkThreadName(clientID: String) -> String {
        let id = clientID.hasPrefix("stepcompass-") ? clientID.dropFirst("stepcompass-".count) : Substring(clientID)
        var name = "mqtt"
        for character in " \(id)" {
            guard name.utf8.count + String(character).utf8.count <= 15 else { break }
            name.append(character)
        }
        return name
    }

    /// Asks the network thread to stop and waits for it; with `sendDisconnect` false the socket is
    /// closed without a DISCONNECT packet, so the broker publishes the last will.
    func stopNetworkThread(sendDisconnect: Bool) async {
        let running = state.withLock { state -> Bool in
            state.stopRequested = true
            state.sendDisconnectOnStop = sendDisconnect
            return state.threadStarted && !state.threadFinished
        }
        wake.signal()  // out of its poll now rather than at the timeout
        if running {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let finished = state.withLock { state -> Bool in
                    if state.threadFinished { return true }
                    state.threadExitWaiters.append(continuation)
                    return false
                }
                if finished { continuation.resume() }
            }
        }
        let waiters = state.withLock { state in
            state.phase = .stopped
            defer {
                state.connectWaiters.removeAll()
                state.ackWaiters.removeAll()
            }
            return (Array(state.connectWaiters.values), Array(state.ackWaiters.values))
        }
        for waiter in waiters.0 { waiter.resume(throwing: BusError(.closed, "the MQTT client '\(clientID)' was closed")) }
        for waiter in waiters.1 { waiter.resume(throwing: BusError(.closed, "the MQTT client '\(clientID)' was closed")) }
    }

    private var stopRequested: Bool { state.withLock { $0.stopRequested } }

    /// The network thread: connect, run libmosquitto's loop, reconnect with backoff, stop on request.
    private func networkLoop() {
        executor.threadStarted()
        var delay = configuration.reconnectDelay
        var socketOpen = false
        var failures = 0
        var lastConnectCount = 0
        while !stopRequested {
            if !socketOpen {
                let rc = connectOnce()
                if rc != Int32(MOSQ_ERR_SUCCESS.rawValue) {
                    failures += 1
                    let reason = MosquittoError(code: rc, function: "mosquitto_connect_bind_v5").message
                    state.withLock { $0.lastError = reason }
                    let level: Logger.Level = failures == 1 || failures % 20 == 0 ? .warning : .debug
                    logger.log(
                        level: level, "cannot reach the MQTT broker, retrying",
                        metadata: [
                            "mqtt.broker": "\(configuration.host):\(configuration.port)", "error": "\(reason)",
                            "retry.in": "\(delay)", "retry.attempt": "\(failures)",
                        ])
                    pause(delay)
                    delay = min(delay * 2, configuration.reconnectDelayMax)
                    continue
                }
                socketOpen = true
            }
            let rc = readBurst(after: loopOnce(timeout: 100))
            if rc == Int32(MOSQ_ERR_SUCCESS.rawValue), !receivedBatch.isEmpty {
                // The QoS 1 acknowledgements of the burst leave before its messages reach the application: a broker
                // redelivers every message whose PUBACK it lacks after a crash, and an acknowledgement still queued
                // here while the service stores the message would make that a message already stored.
                _ = mosquitto_loop_write(handle, 1)
            }
            routeReceived()
            // The tasks that prefer this thread, resumed by what was just routed; what they publish is written now
            // rather than after another turn of poll.
            if executor.runQueuedJobs() && mosquitto_want_write(handle) { _ = mosquitto_loop_write(handle, 1) }
            let count = connectCount
            if count != lastConnectCount {
                lastConnectCount = count
                delay = configuration.reconnectDelay
                failures = 0
            }
            if rc != Int32(MOSQ_ERR_SUCCESS.rawValue) {
                socketOpen = false
                if stopRequested { break }
                let error = MosquittoError.describe(code: rc)
                // What a connect that times out reports (it said "no answer" when the connection was lost before the
                // broker's CONNACK), unless the broker said why it refused.
                state.withLock { state in
                    if !(state.lastError?.hasPrefix(Self.refusedPrefix) ?? false) { state.lastError = "the connection was lost: \(error)" }
                }
                failures += 1
                logger.debug("network loop ended", metadata: ["error": "\(error)", "retry.in": "\(delay)"])
                pause(delay)
                delay = min(delay * 2, configuration.reconnectDelayMax)
            }
        }
        finishNetworkLoop(socketOpen: socketOpen)
    }

    /// One turn of libmosquitto's loop, as `mosquitto_loop` takes it but waiting with `poll`.
    ///
    /// `mosquitto_loop` waits with `select`, which cannot watch a descriptor numbered 1,024 or above: it then fails
    /// at once with MOSQ_ERR_INVAL, every turn, and the client never gets its CONNACK. A process with many files and
    /// sockets open (the test runner running suites in parallel; a dashboard with many clients) hands a reconnecting
    /// client such a descriptor. This waits up to `timeout` milliseconds for the socket, or for ``wake`` (a packet
    /// queued by another thread), reads one packet when there is one, writes what is queued and runs the keep-alive.
    /// - Parameters:
    ///   - timeout: The longest wait, in milliseconds.
    ///   - forJobs: Whether queued jobs (NetworkExecutor) and a stop request end the wait at once: they do in the
    ///     main loop, which runs the jobs and checks for a stop after the turn; they must not while the DISCONNECT
    ///     is flushed, which runs no jobs and would otherwise spin through its turns without waiting for the socket.
    func loopOnce(timeout: Int32, forJobs: Bool = true) -> Int32 {
        var timeout = timeout
        let socket = mosquitto_socket(handle)
        guard socket >= 0 else { return Int32(MOSQ_ERR_NO_CONN.rawValue) }
        wake.willWait()
        // Jobs queued for this thread (NetworkExecutor) are run after this turn, and a stop is seen there: no wait
        // for either (their signal does not write the pipe while the thread is busy).
        if forJobs && (executor.hasJobs || stopRequested) { timeout = 0 }
        // The socket's and the pipe's returned events, or nil when poll failed; on the stack (a turn per packet).
        let returned = withUnsafeTemporaryAllocation(of: pollfd.self, capacity: 2) { descriptors -> (Int16, Int16)? in
            descriptors[0] = pollfd(
                fd: socket, events: Int16(POLLIN) | (mosquitto_want_write(handle) ? Int16(POLLOUT) : 0), revents: 0)
            descriptors[1] = pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(descriptors.baseAddress, 2, timeout) >= 0 || errno == EINTR else { return nil }
            return (descriptors[0].revents, descriptors[1].revents)
        }
        wake.didWait()
        guard let (socketEvents, wakeEvents) = returned else { return Int32(MOSQ_ERR_ERRNO.rawValue) }
        if wakeEvents != 0 { wake.drain() }
        let success = Int32(MOSQ_ERR_SUCCESS.rawValue)
        if socketEvents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            let rc = mosquitto_loop_read(handle, 1)
            if rc != success { return rc }
        }
        if mosquitto_want_write(handle) {
            let rc = mosquitto_loop_write(handle, 1)
            if rc != success { return rc }
        }
        return mosquitto_loop_misc(handle)
    }

    /// Reads on while packets are waiting, after a loop turn (``loopOnce(timeout:)``) that received a message.
    ///
    /// `mosquitto_loop` reads at most one packet per call for QoS 0 traffic, after a `select` and the
    /// keep-alive bookkeeping; at tens of thousands of messages a second those cost more than the
    /// messages. `mosquitto_loop_read` reads the next packet without them and returns at once when the
    /// socket has nothing more. The burst is bounded so that queued publishes (written by
    /// `mosquitto_loop`) and keep-alives wait for at most a few hundred microseconds.
    /// - Returns: `loopResult`, or the error of a read in the burst (libmosquitto has then closed the
    ///   connection, as `mosquitto_loop` would have).
    private func readBurst(after loopResult: Int32) -> Int32 {
        guard loopResult == Int32(MOSQ_ERR_SUCCESS.rawValue), !receivedBatch.isEmpty else { return loopResult }
        for _ in 0..<Self.burstLimit {
            let before = receivedBatch.count
            let rc = mosquitto_loop_read(handle, 1)
            if rc != Int32(MOSQ_ERR_SUCCESS.rawValue) { return rc }
            if receivedBatch.count == before { break }
        }
        return loopResult
    }

    /// The most packets read in one burst after a `mosquitto_loop` call.
    private static let burstLimit = 128

    private func connectOnce() -> Int32 {
        var properties: OpaquePointer? = nil
        defer { mosquitto_property_free_all(&properties) }
        if configuration.protocolVersion == .v5 {
            let expiry = configuration.cleanStart ? 0 : configuration.sessionExpiry
            mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), expiry)
        }
        return mosquitto_connect_bind_v5(
            handle, configuration.host, Int32(configuration.port), Int32(configuration.keepAlive), nil, properties)
    }

    private func finishNetworkLoop(socketOpen: Bool) {
        let sendDisconnect = state.withLock { $0.sendDisconnectOnStop }
        if socketOpen && sendDisconnect {
            mosquitto_disconnect_v5(handle, 0, nil)
            // Let the loop write the DISCONNECT; it returns an error once the socket is closed.
            for _ in 0..<20 where loopOnce(timeout: 50, forJobs: false) == Int32(MOSQ_ERR_SUCCESS.rawValue) {
                routeReceived()
            }
        } else if socketOpen {
            // Close the socket without DISCONNECT, as a crash would. Re-initialising frees the old
            // connection; the callbacks are cleared with it, so nothing reaches this object afterwards.
            mosquitto_reinitialise(handle, clientID, configuration.cleanStart, nil)
        }
        routeReceived()
        let waiters = state.withLock { state in
            state.threadFinished = true
            if state.phase == .connected { state.phase = .connecting }
            defer { state.threadExitWaiters.removeAll() }
            return state.threadExitWaiters
        }
        window.connectionLost()
        executor.threadFinished()
        for waiter in waiters { waiter.resume() }
    }

    /// Waits on the network thread before a reconnect, running the jobs of tasks that prefer it meanwhile, and waking
    /// early when a stop is requested.
    private func pause(_ duration: Duration) {
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        while !stopRequested {
            executor.runQueuedJobs()
            let left = deadline - clock.now
            guard left > .zero else { return }
            wake.willWait()
            let milliseconds = executor.hasJobs ? 0 : Int32(min(20, (left / .milliseconds(1)).rounded(.up)))
            var descriptor = pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)
            let woken = poll(&descriptor, 1, milliseconds) > 0
            wake.didWait()
            if woken { wake.drain() }
        }
    }
}
