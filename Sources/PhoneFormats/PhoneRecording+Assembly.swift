/// What assembling a whole recording into contract messages needs to know about it (the replay and the accuracy
/// check assemble it the same way).
extension PhoneRecording {
    /// The first magnetometer reading, calibrated if the recording has a calibrated stream: the
    /// ``IMUAssembler``'s `initialMagnetometer`, so the acceleration samples recorded a moment before it are IMU
    /// samples too.
    public var firstMagnetometer: Vector3? {
        var uncalibrated: Vector3?
        for sample in samples {
            guard case .magneticField(let field, let calibrated) = sample.reading else { continue }
            if calibrated { return field }
            if uncalibrated == nil { uncalibrated = field }
        }
        return uncalibrated
    }

    /// Whether the recording has a total-acceleration stream (Sensor Logger's `TotalAcceleration.csv`, phyphox's
    /// "Acceleration with g"): its user acceleration is then left out before assembly, so none is combined with
    /// gravity before the first total-acceleration sample.
    public var hasTotalAcceleration: Bool {
        samples.contains { if case .acceleration = $0.reading { true } else { false } }
    }

    /// `samples[range]` as the ``IMUAssembler`` should get them (see ``hasTotalAcceleration``).
    public func assemblyInput(_ range: Range<Int>, hasTotalAcceleration: Bool) -> [PhoneSample] {
        guard hasTotalAcceleration else { return Array(samples[range]) }
        return samples[range].filter { if case .userAcceleration = $0.reading { false } else { true } }
    }
}
