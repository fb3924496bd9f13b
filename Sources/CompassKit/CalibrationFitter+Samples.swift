import Foundation

/// The sample buffer, the gate and the consistency tracking behind ``CalibrationFitter``.
extension CalibrationFitter {
    /// Checks a raw sample against a calibration: corrected strength, and dip when steady.
    func check(_ raw: Vector3, against calibration: Calibration, gravity: Vector3?) -> SampleResult {
        let corrected = calibration.apply(raw)
        let strength = corrected.norm
        let reference = calibration.fieldStrength
        guard reference > 0, abs(strength - reference) <= configuration.strengthTolerance * reference else {
            return .rejectedFieldStrength
        }
        if let expectedInclination, let gravity {
            let g = gravity.norm
            if abs(g - 9.80665) <= configuration.steadyAccelerationTolerance, g > 0, strength > 0 {
                let dip = Angle.degrees(asin(max(-1, min(1, -corrected.dot(gravity) / (g * strength)))))
                if abs(dip - expectedInclination) > configuration.dipTolerance { return .rejectedInclination }
            }
        }
        return .kept
    }

    /// Moves between `calibrated` and `needsCalibration` from how long samples have agreed or
    /// disagreed with the calibration.
    mutating func trackConsistency(_ consistent: Bool, at timestamp: Double) {
        // Gaps count as at most half a second, so one sample after a pause cannot flip the state.
        let dt = min(0.5, max(0, timestamp - (lastConsistencyCheck ?? timestamp)))
        lastConsistencyCheck = timestamp
        let tau = configuration.inconsistencyTimeConstant
        let alpha = tau > 0 ? -expm1(-dt / tau) : 1
        inconsistency += alpha * ((consistent ? 0 : 1) - inconsistency)
        switch state {
        case .calibrated:
            if inconsistency > configuration.needsCalibrationRatio {
                state = .needsCalibration
                clearSamples()
                gateEnabled = false
            }
        case .needsCalibration:
            if inconsistency < configuration.recoveredRatio {
                state = .calibrated
                clearSamples()
                gateEnabled = true
            }
        case .uncalibrated, .calibrating:
            break
        }
    }

    /// Stores a sample, replacing the oldest of the most crowded cell when the buffer is full.
    mutating func insert(_ raw: Vector3) {
        boundsMin = Vector3(min(boundsMin.x, raw.x), min(boundsMin.y, raw.y), min(boundsMin.z, raw.z))
        boundsMax = Vector3(max(boundsMax.x, raw.x), max(boundsMax.y, raw.y), max(boundsMax.z, raw.z))
        if calibration == nil, samples.count < configuration.minSamplesForSphere {
            // Until a fit exists, cells are relative to the bounding box's centre, which moves.
            cellCentre = centreOfBounds
        }
        let cell = cells.bin(of: raw - cellCentre) ?? 0
        lastKept = raw
        keptCount += 1
        keptSinceFit += 1
        nextSerial += 1
        if samples.count < configuration.maxSamples {
            samples.append(raw)
            sampleCells.append(cell)
            sampleSerials.append(nextSerial)
            cellCounts[cell] += 1
            return
        }
        var crowded = cell
        for index in cellCounts.indices where cellCounts[index] > cellCounts[crowded] { crowded = index }
        var oldest = -1
        for index in samples.indices where sampleCells[index] == crowded {
            if oldest < 0 || sampleSerials[index] < sampleSerials[oldest] { oldest = index }
        }
        guard oldest >= 0 else { return }
        cellCounts[crowded] -= 1
        samples[oldest] = raw
        sampleCells[oldest] = cell
        sampleSerials[oldest] = nextSerial
        cellCounts[cell] += 1
    }

    /// Reassigns every sample's cell around a new centre.
    mutating func recentre(on centre: Vector3) {
        cellCentre = centre
        for index in cellCounts.indices { cellCounts[index] = 0 }
        for index in samples.indices {
            let cell = cells.bin(of: samples[index] - centre) ?? 0
            sampleCells[index] = cell
            cellCounts[cell] += 1
        }
    }

    /// Empties the buffer.
    mutating func clearSamples() {
        samples.removeAll(keepingCapacity: true)
        sampleCells.removeAll(keepingCapacity: true)
        sampleSerials.removeAll(keepingCapacity: true)
        for index in cellCounts.indices { cellCounts[index] = 0 }
        boundsMin = Vector3(.infinity, .infinity, .infinity)
        boundsMax = Vector3(-.infinity, -.infinity, -.infinity)
        lastKept = nil
        keptSinceFit = 0
    }

    var centreOfBounds: Vector3 {
        guard boundsMin.isFinite, boundsMax.isFinite else { return .zero }
        return (boundsMin + boundsMax) * 0.5
    }

    func isPlausible(radius: Double) -> Bool {
        guard configuration.plausibleRadius.contains(radius) else { return false }
        if let expectedFieldStrength, expectedFieldStrength > 0 {
            return abs(radius - expectedFieldStrength) <= configuration.expectedRadiusTolerance * expectedFieldStrength
        }
        return true
    }

    func meetsCalibrated(_ calibration: Calibration) -> Bool {
        calibration.quality >= configuration.calibratedMinQuality
            && calibration.coverage >= configuration.calibratedMinCoverage
    }

    func makeCalibration(
        hardIron: Vector3, softIron: Matrix3, residual: Double, radius: Double, coverage: Double,
        model: Calibration.Model
    ) -> Calibration {
        let relative = radius > 0 ? residual / radius : 1
        let errorScore = max(0, min(1, 1 - relative / configuration.residualForZeroQuality))
        let coverageScore = max(0, min(1, coverage / configuration.coverageForFullQuality))
        let modelFactor = model == .ellipsoid ? 1.0 : 0.8
        return Calibration(
            hardIron: hardIron, softIron: softIron, quality: errorScore * coverageScore.squareRoot() * modelFactor,
            coverage: coverage, fitResidual: residual, fieldStrength: radius, model: model)
    }
}
