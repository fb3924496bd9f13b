public import PositionKit
public import ServiceRuntime

extension PositionMessage {
    /// The message the service publishes for a calculator state: every contract field, `heading` `null` before the
    /// first batch, and with `--step-length estimated` the two fields a restart needs.
    public init(timestamp: String, state: PositionState) {
        self.init(
            x: state.x, y: state.y, steps: state.steps, sessionSteps: state.sessionSteps, distance: state.distance,
            heading: state.heading, updates: state.updates, timestamp: timestamp, pendingDistance: state.pendingDistance,
            sessionDistance: state.sessionDistance)
    }
}

extension PositionState {
    /// The state of a retained `position` message (the service's own, read back after a restart).
    /// - Throws: `InputError` naming a field the calculator needs that the message lacks.
    public init(_ message: PositionMessage) throws(InputError) {
        func required<Value>(_ value: Value?, _ field: String) throws(InputError) -> Value {
            guard let value else { throw InputError("the field '\(field)' is missing") }
            return value
        }
        self.init(
            x: message.x, y: message.y, steps: try required(message.steps, "steps"),
            sessionSteps: try required(message.sessionSteps, "sessionSteps"),
            distance: try required(message.distance, "distance"), heading: message.heading,
            updates: try required(message.updates, "updates"), pendingDistance: message.pendingDistance,
            sessionDistance: message.sessionDistance)
    }
}
