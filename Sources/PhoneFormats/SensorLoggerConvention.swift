import Foundation

/// The phone platform a Sensor Logger recording came from.
public enum SensorLoggerPlatform: String, Sendable, Hashable, Codable {
    /// Android.
    case android
    /// iOS (iPhone).
    case iOS
}

/// How a Sensor Logger recording reports acceleration, and so how to convert it to the contract
/// (Android frame, m/s², flat face up ≈ `[0, 0, +9.81]`).
///
/// Sensor Logger's documentation (`tszheichoi/awesome-sensor-logger`, `COORDINATES.md`,
/// `CROSSPLATFORM.md`, `UNITS.md`): on iOS, with the default setting ("Standardise Units & Frames"
/// off), `accelerometer` and `gravity` are negated on all three axes relative to Android (flat on a
/// table, gravity reads `-z` on iOS, `+z` on Android), and `accelerometeruncalibrated` is in g.
/// Calibrated `accelerometer` and `gravity` are m/s² on both platforms; gyroscope (rad/s) and
/// magnetometer (µT) agree across platforms. With the setting on, iOS follows Android. iOS has no
/// `totalacceleration` stream: total acceleration is `accelerometer + gravity`.
///
/// The push body carries no platform field, so ``detect(in:)`` looks for evidence:
/// 1. a `totalacceleration` reading → Android (only Android logs it);
/// 2. `accelerometeruncalibrated` with a median magnitude below 3 → iOS default (only iOS with
///    standardisation off reports it in g);
/// 3. a `location` carrying `altitudeAboveMeanSeaLevel` (iOS only) → iOS: ``iOSStandardised`` when
///    `accelerometeruncalibrated` is present in m/s² (median magnitude ≥ 3, so standardisation is on),
///    else ``iOSDefault`` (the app's default setting; configure ``iOSStandardised`` explicitly if the
///    phones have standardisation on and do not stream uncalibrated acceleration);
/// 4. otherwise no evidence (`nil`): the caller keeps its previous answer or uses ``android``.
///
/// Independently, when the median magnitude of `gravity` in a batch is below 3 (about 1, i.e. in g
/// rather than ≈ 9.81 m/s²), ``SensorLoggerMessage/samples(convention:)`` scales that batch's
/// `accelerometer` and `gravity` by 9.80665; this never happens with the documented units but guards
/// against older app versions. For CSV exports, `Metadata.csv`'s `platform` (and `standardisation`
/// when present) decides first.
public struct SensorLoggerConvention: Sendable, Hashable {
    /// The platform, when known.
    public var platform: SensorLoggerPlatform?
    /// Whether `accelerometer` and `gravity` must be negated (iOS with standardisation off).
    public var negatesAcceleration: Bool

    /// Creates a convention.
    public init(platform: SensorLoggerPlatform?, negatesAcceleration: Bool) {
        self.platform = platform
        self.negatesAcceleration = negatesAcceleration
    }

    /// Android, or any phone whose values already follow Android (the default when nothing is known).
    public static let android = SensorLoggerConvention(platform: .android, negatesAcceleration: false)
    /// iOS with "Standardise Units & Frames" off (the app's default): acceleration and gravity negated.
    public static let iOSDefault = SensorLoggerConvention(platform: .iOS, negatesAcceleration: true)
    /// iOS with "Standardise Units & Frames" on: already Android's frame and units.
    public static let iOSStandardised = SensorLoggerConvention(platform: .iOS, negatesAcceleration: false)

    /// The convention the readings give evidence of, or `nil` when they give none (see the type's
    /// documentation for the rules, strongest first).
    public static func detect(in readings: [SensorLoggerReading]) -> SensorLoggerConvention? {
        var uncalibratedMagnitudes: [Double] = []
        var sawMeanSeaLevel = false
        for reading in readings {
            switch reading.sensor {
            case .totalAcceleration: return .android
            case .accelerometerUncalibrated(let vector): uncalibratedMagnitudes.append(vector.magnitude)
            case .location(_, let meanSeaLevel): sawMeanSeaLevel = sawMeanSeaLevel || meanSeaLevel != nil
            default: break
            }
        }
        if let median = median(uncalibratedMagnitudes) {
            if median < 3 { return .iOSDefault }
            if sawMeanSeaLevel { return .iOSStandardised }
        }
        return sawMeanSeaLevel ? .iOSDefault : nil
    }

    /// The convention stated by an export's `Metadata.csv` (`platform`: `ios`/`android`;
    /// `standardisation`: truthy when "Standardise Units & Frames" was on), or `nil`.
    public static func fromMetadata(platform: String?, standardisation: String?) -> SensorLoggerConvention? {
        guard let platform = platform?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
        if platform.hasPrefix("android") { return .android }
        guard platform.hasPrefix("ios") || platform.hasPrefix("iphone") || platform.hasPrefix("ipad") else { return nil }
        let flag = standardisation?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return ["true", "1", "yes", "on", "enabled"].contains(flag) ? .iOSStandardised : .iOSDefault
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        return values.sorted()[values.count / 2]
    }
}
