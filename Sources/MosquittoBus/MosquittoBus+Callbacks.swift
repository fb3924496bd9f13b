import Bus
import CMosquitto
import Logging
import Synchronization

import struct Foundation.Data

/// libmosquitto's callbacks. They run on the network thread, copy what they need, update the state
/// under its lock and resume continuations or yield into streams; no application code runs here.
extension MosquittoBus {
    private static func bus(_ pointer: UnsafeMutableRawPointer?) -> MosquittoBus? {
        pointer.map { Unmanaged<MosquittoBus>.fromOpaque($0).takeUnretainedValue() }
    }

    func installCallbacks() {
        mosquitto_connect_v5_callback_set(handle) { _, object, reasonCode, flags, _ in
            MosquittoBus.bus(object)?.didConnect(reasonCode: reasonCode, flags: flags)
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, object, reasonCode, _ in
            MosquittoBus.bus(object)?.didDisconnect(reasonCode: reasonCode)
        }
        mosquitto_publish_v5_callback_set(handle) { _, object, mid, reasonCode, _ in
            MosquittoBus.bus(object)?.didPublish(mid: mid, reasonCode: reasonCode)
        }
        mosquitto_message_v5_callback_set(handle) { _, object, message, properties in
            guard let bus = MosquittoBus.bus(object), let message else { return }
            bus.didReceive(message.pointee, properties: properties)
        }
        mosquitto_subscribe_v5_callback_set(handle) { _, object, mid, count, granted, _ in
            let codes = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(count))) } ?? []
            MosquittoBus.bus(object)?.didAcknowledge(mid: mid, codes: codes)
        }
        mosquitto_unsubscribe_v5_callback_set(handle) { _, object, mid, _ in
            MosquittoBus.bus(object)?.didAcknowledge(mid: mid, codes: [])
        }
    }

    /// How ``ConnectionState/lastError`` begins when the broker answered the CONNECT with a refusal.
    static let refusedPrefix = "the broker refused the connection: "

    private func didConnect(reasonCode: Int32, flags: Int32) {
        guard reasonCode == 0 else {
            let reason =
                configuration.protocolVersion == .v5
                ? MosquittoError.describe(reasonCode: reasonCode)
                : String(cString: mosquitto_connack_string(reasonCode))
            state.withLock { $0.lastError = "\(Self.refusedPrefix)\(reason)" }
            logger.warning(
                "the MQTT broker refused the connection",
                metadata: [
                    "mqtt.broker": "\(configuration.host):\(configuration.port)", "mqtt.reason": "\(reason)",
                ])
            return
        }
        let active = router.activeRequests
        let (waiters, count, afterReconnect): ([CheckedContinuation<Void, any Error>], Int, [BusMessage]) = sendLock.withLock { _ in
            state.withLock { state in
                state.phase = .connected
                state.connectCount += 1
                state.lastError = nil
                defer { state.connectWaiters.removeAll() }
                return (Array(state.connectWaiters.values), state.connectCount, state.afterReconnect)
            }
        }
        logger.info(
            count == 1 ? "connected to the MQTT broker" : "reconnected to the MQTT broker",
            metadata: [
                "mqtt.broker": "\(configuration.host):\(configuration.port)",
                "mqtt.protocol": "\(configuration.protocolVersion.rawValue)",
                "mqtt.sessionPresent": "\(flags & 1 == 1)",
            ])
        configuration.observer?.connection(up: true)
        resubscribe(active, then: afterReconnect)
        for waiter in waiters { waiter.resume() }
    }

    /// Subscribes again to every active filter (libmosquitto does not) and publishes the restated messages and the
    /// birth message once all are acknowledged. MQTT 5's "send retained only for a new subscription" option keeps a
    /// resumed session from replaying retained messages the subscriber has already seen.
    private func resubscribe(_ requests: [SubscriptionRequest], then afterReconnect: [BusMessage]) {
        guard !requests.isEmpty else {
            for message in afterReconnect { publishFromCallback(message) }
            return
        }
        sendLock.withLock { _ in
            for request in requests {
                var mid: Int32 = 0
                let options = subscribeOptions(request, retainedOnlyIfNew: true)
                let rc = mosquitto_subscribe_v5(handle, &mid, request.filter.rawValue, Int32(request.qos.rawValue), options, nil)
                if rc == Int32(MOSQ_ERR_SUCCESS.rawValue) {
                    _ = state.withLock { $0.resubscribeMids.insert(mid) }
                } else {
                    logger.warning(
                        "could not resubscribe",
                        metadata: [
                            "mqtt.filter": "\(request.filter)", "error": "\(MosquittoError.describe(code: rc))",
                        ])
                }
            }
        }
        logger.info("resubscribed after reconnect", metadata: ["mqtt.filters": "\(requests.map(\.filter.rawValue).joined(separator: " "))"])
    }

    /// Publishes from inside a callback, where waiting for a window slot is not allowed.
    private func publishFromCallback(_ message: BusMessage) {
        window.reserveImmediately()
        var mid: Int32 = 0
        let rc = message.payload.withUnsafeBytes { raw in
            mosquitto_publish_v5(handle, &mid, message.topic, Int32(raw.count), raw.baseAddress, Int32(message.qos.rawValue), message.retain, nil)
        }
        if rc == Int32(MOSQ_ERR_SUCCESS.rawValue) {
            window.commit(mid: mid, qos: message.qos)
        } else {
            window.cancelReservation()
            logger.warning("could not republish", metadata: ["mqtt.topic": "\(message.topic)", "error": "\(MosquittoError.describe(code: rc))"])
        }
    }

    private func didDisconnect(reasonCode: Int32) {
        let (waiters, stopping) = state.withLock { state in
            if state.phase == .connected { state.phase = .connecting }
            state.resubscribeMids.removeAll()
            state.awaitingAck.removeAll()
            state.acks.removeAll()
            defer { state.ackWaiters.removeAll() }
            return (Array(state.ackWaiters.values), state.stopRequested)
        }
        window.connectionLost()
        configuration.observer?.connection(up: false)
        let error = BusError(.notConnected, "the connection to the MQTT broker was lost")
        for waiter in waiters { waiter.resume(throwing: error) }
        if stopping {
            logger.info("disconnected from the MQTT broker")
        } else {
            let reason = reasonCode == 0 ? "closed" : MosquittoError.describe(code: reasonCode)
            logger.warning("lost the connection to the MQTT broker, reconnecting", metadata: ["mqtt.reason": "\(reason)"])
        }
    }

    private func didPublish(mid: Int32, reasonCode: Int32) {
        window.complete(mid: mid)
        if reasonCode >= 0x80 {
            logger.warning(
                "the broker did not accept a publish",
                metadata: [
                    "mqtt.mid": "\(mid)", "mqtt.reason": "\(MosquittoError.describe(reasonCode: reasonCode))",
                ])
        }
    }

    private func didReceive(_ message: mosquitto_message, properties: OpaquePointer?) {
        // The message and its properties are freed when this callback returns: copy everything now.
        guard let topicPointer = message.topic else { return }
        let payload = message.payload.map { Data(bytes: $0, count: Int(message.payloadlen)) } ?? Data()
        let received = BusMessage(
            topic: String(cString: topicPointer),
            payload: payload,
            qos: QoS(rawValue: Int(message.qos)) ?? .atMostOnce,
            retain: message.retain,
            properties: MosquittoProperties.read(properties))
        receivedBatch.append(received)
    }

    /// Routes the messages of the last read burst, waking each subscriber once for all of them; the
    /// network thread calls it after every libmosquitto loop call, so no message waits longer than one
    /// burst of reads.
    func routeReceived() {
        guard !receivedBatch.isEmpty else { return }
        let batch = receivedBatch
        receivedBatch.removeAll(keepingCapacity: true)
        configuration.observer?.received(batch)
        router.route(batch)
    }

    private func didAcknowledge(mid: Int32, codes: [Int32]) {
        // Taking sendLock first means a caller that sent this SUBSCRIBE has registered its message id.
        let (waiter, afterReconnect): (CheckedContinuation<[Int32], any Error>?, [BusMessage]) = sendLock.withLock { _ in
            state.withLock { state in
                if state.resubscribeMids.remove(mid) != nil {
                    return (nil, state.resubscribeMids.isEmpty ? state.afterReconnect : [])
                }
                if let waiter = state.ackWaiters.removeValue(forKey: mid) {
                    state.awaitingAck.remove(mid)
                    return (waiter, [])
                }
                if state.awaitingAck.contains(mid) { state.acks[mid] = codes }
                return (nil, [])
            }
        }
        waiter?.resume(returning: codes)
        for message in afterReconnect { publishFromCallback(message) }
    }
}
