extension SensorLoggerMessage {
    /// The readings converted to contract units and the Android frame (see ``SensorLoggerConvention``).
    public func samples(convention: SensorLoggerConvention) -> [PhoneSample] {
        SensorLoggerReading.samples(readings, convention: convention)
    }
}

extension SensorLoggerReading {
    /// Converts readings to ``PhoneSample``s: negates `accelerometer` and `gravity` when the convention
    /// says so, scales them from g to m/s² when the readings' median `gravity` magnitude is below 3,
    /// and drops `accelerometeruncalibrated` (used only for detection).
    public static func samples(_ readings: [SensorLoggerReading], convention: SensorLoggerConvention) -> [PhoneSample] {
        let gravityMagnitudes = readings.compactMap { reading -> Double? in
            if case .gravity(let vector) = reading.sensor { return vector.magnitude }
            return nil
        }
        var scale = 1.0
        if let median = SensorLoggerConvention.median(gravityMagnitudes), median > 0.2, median < 3 { scale = Vector3.standardGravity }
        let signed = (convention.negatesAcceleration ? -1.0 : 1.0) * scale
        return readings.compactMap { reading -> PhoneSample? in
            let time = reading.time
            let converted: PhoneSample.Reading
            switch reading.sensor {
            case .accelerometer(let vector): converted = .userAcceleration(vector * signed)
            case .totalAcceleration(let vector): converted = .acceleration(vector * (convention.negatesAcceleration ? -1 : 1))
            case .gravity(let vector): converted = .gravity(vector * signed)
            case .accelerometerUncalibrated: return nil
            case .magnetometer(let vector): converted = .magneticField(vector, calibrated: true)
            case .magnetometerUncalibrated(let vector): converted = .magneticField(vector, calibrated: false)
            case .gyroscope(let vector): converted = .rotationRate(vector, calibrated: true)
            case .gyroscopeUncalibrated(let vector): converted = .rotationRate(vector, calibrated: false)
            case .location(let location, _): converted = .location(location)
            case .pedometer(let steps): converted = .steps(steps)
            }
            return PhoneSample(time: time, reading: converted)
        }
    }
}
