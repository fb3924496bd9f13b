public import ArgumentParser
public import Configuration

/// `--max-devices`: the option of every service that keeps state per device on the bus (compass, position,
/// activity), read like the ``RuntimeOptions``: the command line, then `MAX_DEVICES`, then `max.devices` in the
/// configuration file, then ``DeviceTable/defaultCapacity``.
///
/// Not part of ``RuntimeOptions``: the bridge and the dashboard have a `--max-devices` of their own, with their own
/// defaults and meaning.
public struct DeviceLimitOptions: ParsableArguments, Sendable {
    @Option(
        name: .customLong("max-devices"),
        help: """
            Devices tracked at most; when full, a new device takes the place of the one idle the longest if it has been \
            idle \(Int(DeviceTable<Void>.defaultMinimumIdle.components.seconds)) s, else its messages are rejected \
            (env MAX_DEVICES, default \(DeviceTable<Void>.defaultCapacity)).
            """)
    public var maxDevices: Int?

    public init() {}

    /// Adds the option given on the command line to `values` (key `max.devices`).
    public func set(into values: inout CommandLineValues) {
        values.set("max.devices", maxDevices)
    }
}
