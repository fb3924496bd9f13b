public import Bus

extension BusServiceContext {
    /// Whether `message` is a cleared retained message (`stepcompass forget` publishes an empty retained message on each
    /// of a device's retained topics): nothing to apply, and not bad input. Any other empty payload (a live `steps` or
    /// `imu` without a body) is bad input the service reports.
    public func isCleared(_ message: BusMessage) -> Bool {
        guard message.payload.isEmpty else { return false }
        if message.retain { return true }
        guard let (_, topic) = topics.parseDeviceTopic(message.topic) else { return false }
        return Topics.retainedDeviceTopics.contains(topic)
    }
}
