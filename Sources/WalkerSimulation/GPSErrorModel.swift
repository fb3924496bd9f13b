import RealModule

/// The error of a consumer GPS fix: a first-order Gauss–Markov process per axis, so consecutive fixes wander
/// together the way real fixes do (multipath and atmosphere change over tens of seconds), rather than jumping
/// independently. The reported accuracy follows the same model with a slowly varying factor.
struct GPSErrorModel: Sendable {
    private(set) var north = 0.0
    private(set) var east = 0.0
    private(set) var up = 0.0
    /// Relative wander of the reported accuracy, about ±15 %.
    private(set) var accuracyFactor = 0.0
    private let horizontalSigma: Double
    private let verticalSigma: Double
    private let correlationTime: Double
    private var rng: SplitMix64

    init(horizontalSigma: Double, verticalSigma: Double, correlationTime: Double, rng: SplitMix64) {
        self.horizontalSigma = horizontalSigma
        self.verticalSigma = verticalSigma
        self.correlationTime = correlationTime
        self.rng = rng
        // Start in the stationary distribution, so the first fix is as wrong as any other.
        north = horizontalSigma * self.rng.nextGaussian()
        east = horizontalSigma * self.rng.nextGaussian()
        up = verticalSigma * self.rng.nextGaussian()
        accuracyFactor = 0.15 * self.rng.nextClippedGaussian()
    }

    /// Moves the errors on by `interval` seconds.
    mutating func advance(by interval: Double) {
        let rho = Double.exp(-interval / correlationTime)
        let innovation = (1 - rho * rho).squareRoot()
        north = rho * north + horizontalSigma * innovation * rng.nextGaussian()
        east = rho * east + horizontalSigma * innovation * rng.nextGaussian()
        up = rho * up + verticalSigma * innovation * rng.nextGaussian()
        accuracyFactor = min(0.45, max(-0.45, rho * accuracyFactor + 0.15 * innovation * rng.nextGaussian()))
    }

    /// The radius (metres) a receiver would report: about 1.6 σ, the 68 % circle of a 2-D normal error, never below 1 m.
    var horizontalAccuracy: Double { max(1, 1.6 * horizontalSigma * (1 + accuracyFactor)) }
    /// The vertical accuracy a receiver would report, never below 1 m.
    var verticalAccuracy: Double { max(1, 1.6 * verticalSigma * (1 + accuracyFactor)) }

    /// Speed noise (m/s) scaled with the position error, zero for an exact receiver.
    mutating func speedNoise() -> Double { 0.1 * horizontalSigma / 3 * rng.nextGaussian() }
    /// Course noise (degrees) scaled with the position error, zero for an exact receiver.
    mutating func courseNoise() -> Double { 3 * horizontalSigma / 3 * rng.nextGaussian() }
}
