/// What assembling a whole recording into contract messages needs to know about it (the replay and the accuracy
/// check assemble it the same way).
extension PhoneRecording {
    /// The first magnetometer reading (calibrated, if the recording has a calibrated stream), when it comes within
    /// `window` seconds of the first acceleration sample: the ``IMUAssembler``'s `initialMagnetometer`, so the samples
    /// recorded a moment before the magnetometer's first reading are IMU samples too. A magnetometer that starts later
    /// gives nil: the samples before it are not given a reading from further in their future (the compass would
    /// publish headings for them that never were).
    public func initialMagnetometer(within window: Double = 1) -> Vector3? {
        var calibrated: (time: Double, value: Vector3)?
        var uncalibrated: (time: Double, value: Vector3)?
        var firstAcceleration: Double?
        for sample in samples {
            // Samples are in time order: past the window nothing can serve any more.
            if let start = firstAcceleration, sample.time > start + window { break }
            switch sample.reading {
            case .magneticField(let field, let isCalibrated):
                if isCalibrated {
                    if calibrated == nil { calibrated = (sample.time, field) }
                } else if uncalibrated == nil {
                    uncalibrated = (sample.time, field)
                }
            case .acceleration, .userAcceleration:
                if firstAcceleration == nil { firstAcceleration = sample.time }
            default:
                break
            }
            if calibrated != nil && firstAcceleration != nil { break }
        }
        guard let reading = calibrated ?? uncalibrated, let start = firstAcceleration, reading.time - start <= window else { return nil }
        return reading.value
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
