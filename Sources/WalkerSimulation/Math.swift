import Foundation

/// The few libm functions the simulator needs, in one namespace so call sites read unambiguously
/// next to the many local variables named `sin`, `cos` or `log`.
enum Math {
    static func sin(_ x: Double) -> Double { Foundation.sin(x) }
    static func cos(_ x: Double) -> Double { Foundation.cos(x) }
    static func atan2(_ y: Double, _ x: Double) -> Double { Foundation.atan2(y, x) }
    static func acos(_ x: Double) -> Double { Foundation.acos(x) }
    static func log(_ x: Double) -> Double { Foundation.log(x) }
    static func exp(_ x: Double) -> Double { Foundation.exp(x) }

    static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
    static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

    /// Any finite angle mapped into [0, 360).
    static func compass(_ degrees: Double) -> Double {
        var value = degrees.truncatingRemainder(dividingBy: 360)
        if value < 0 { value += 360 }
        return value >= 360 ? 0 : value
    }

    /// The signed smallest angle, in (-180, 180].
    static func signedAngle(_ degrees: Double) -> Double {
        var value = compass(degrees)
        if value > 180 { value -= 360 }
        return value
    }
}
