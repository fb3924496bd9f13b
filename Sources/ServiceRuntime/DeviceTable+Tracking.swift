import Logging

extension DeviceTable {
    /// The value of `device`, a use at `now`; at the device's first message `make()`'s value is inserted, evicting the
    /// device idle the longest when the table is full. The service's metrics follow (`stepcompass_devices_tracked`,
    /// `…_evicted_total`, `…_refused_total`) and an eviction is logged (debug).
    /// - Parameters:
    ///   - device: The device id.
    ///   - now: The service's clock now.
    ///   - context: The service's context: its metrics and logger.
    ///   - make: The new device's state.
    /// - Returns: The value, and the device evicted to make room for it (the caller forgets what it kept for that one).
    /// - Throws: `InputError` with ``refusal(of:)`` when the table is full and no device has been idle long enough.
    @inlinable
    public mutating func track(
        _ device: String, at now: ServiceClock.Instant, context: BusServiceContext, make: () -> Value
    ) throws(InputError) -> (value: Value, evicted: String?) {
        if let existing = value(for: device, at: now) { return (existing, nil) }
        return try trackNew(device, at: now, context: context, make: make)
    }

    /// ``track(_:at:context:make:)`` for a device not tracked yet (not inlined: it logs and counts).
    @usableFromInline
    mutating func trackNew(
        _ device: String, at now: ServiceClock.Instant, context: BusServiceContext, make: () -> Value
    ) throws(InputError) -> (value: Value, evicted: String?) {
        let created = make()
        switch insert(created, for: device, at: now) {
        case .inserted:
            context.metrics.devicesTracked(count)
            return (created, nil)
        case .evicted(let evicted, _):
            context.metrics.deviceEvicted()
            context.stopRestating(device: evicted)
            context.logger.debug("forgot an idle device to track a new one", metadata: ["device": "\(evicted)"])
            return (created, evicted)
        case .refused:
            context.metrics.deviceRefused()
            throw InputError(refusal(of: device))
        }
    }
}
