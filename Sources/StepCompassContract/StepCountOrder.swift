/// The order of the contract's cumulative counts (`stepcompass/{device}/steps`, QoS 1) as the services read them.
///
/// The contract says a count lower than the last one starts a new session. Under at-least-once delivery one more rule
/// is needed: a lower count stamped no later than the last count applied is an old message a broker delivered again,
/// and changes nothing. A broker restored from an older save (killed before it saved its sessions) sends again
/// everything it had queued then, some of it long handled; read as new sessions, each would add its whole count. The
/// position and activity services both apply this rule, through this one function.
public enum StepCountOrder {
    /// Whether a count is an old message delivered again rather than the start of a new session.
    /// - Parameters:
    ///   - count: The count received.
    ///   - time: Its message's time (seconds since 1970).
    ///   - lastCount: The last count applied.
    ///   - lastTime: The latest time of a count applied (seconds since 1970).
    public static func isRedelivery(count: Int64, at time: Double, lastCount: Int64, lastTime: Double) -> Bool {
        count < lastCount && time <= lastTime
    }
}
