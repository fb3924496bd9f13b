import Bus
import Foundation
import Logging
import MarkerKit
import ServiceRuntime

extension MarkerService {
    /// Records a device's location and publishes its `nearby` list when it is due.
    func handleLocation(_ message: BusMessage, device: String) async {
        let fix: LocationMessage
        let date: Date
        do throws(InputError) {
            try DeviceID.validate(device)
            fix = try PayloadDecoder().decode(LocationMessage.self, from: message.payload)
            _ = try FieldCheck.finite(fix.latitude, "latitude", in: -90...90)
            _ = try FieldCheck.finite(fix.longitude, "longitude", in: -180...180)
            date = try Timestamp.date(fix.timestamp)
        } catch {
            await context.errors.reject(message, reason: error.message)
            return
        }
        guard let index = await store.nearbyDue(device: device, latitude: fix.latitude, longitude: fix.longitude) else {
            return
        }
        await publishNearby(device: device, latitude: fix.latitude, longitude: fix.longitude, date: date, index: index)
    }

    /// Publishes fresh lists for every known device after the markers changed.
    func republishNearby() async {
        guard let (index, devices) = await store.staleNearby() else { return }
        let now = context.clock.date
        for device in devices {
            await publishNearby(
                device: device.device, latitude: device.latitude, longitude: device.longitude, date: now, index: index)
        }
    }

    private func publishNearby(device: String, latitude: Double, longitude: Double, date: Date, index: MarkerIndex)
        async
    {
        guard index.count > 0,
            let results = try? index.nearest(
                latitude: latitude, longitude: longitude,
                count: min(configuration.nearbyCount, MarkerIndex.countRange.upperBound))
        else { return }
        let payload = NearbyMessage(timestamp: Timestamp.format(date), nearest: results.map(NearestReply.Neighbour.init))
        do {
            try await bus.publish(
                BusMessage(
                    topic: topics.device(device, .nearby), payload: try Self.encoder.encode(payload), qos: .atMostOnce))
        } catch {
            logger.warning("could not publish a nearby list", metadata: ["error": "\(error)", "device": "\(device)"])
        }
    }
}
