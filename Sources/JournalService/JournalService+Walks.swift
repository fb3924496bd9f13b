import Bus
import Foundation
import JournalKit
import JournalStore
import Logging
import ServiceRuntime

extension JournalService {
    /// The most walks one list request returns.
    static let maximumWalks = 500

    /// Answers a `journal/walks` request; every outcome is a reply, never a throw.
    func answerWalks(_ message: BusMessage) async {
        let request: WalksRequest
        do {
            request = try decoder.decode(WalksRequest.self, from: message.payload)
        } catch {
            await context.errors.reject(message, reason: error.message)
            await context.reply(Self.errorReply("badRequest", error.message, correlationId: nil), to: message, replyTo: nil, rejected: true)
            return
        }
        let payload: Data
        var rejected = false
        do {
            payload = try await walksReply(request)
        } catch let failure as WalksFailure {
            rejected = failure.code == "badRequest"
            if rejected { await context.errors.reject(message, reason: failure.message) }
            payload = Self.errorReply(failure.code, failure.message, correlationId: request.correlationId)
        } catch {
            context.logger.warning("could not read walks", metadata: ["device": "\(request.device)", "error": "\(error)"])
            payload = Self.errorReply(
                "unavailable", "the journal cannot read its database now; try again shortly", correlationId: request.correlationId)
        }
        await context.reply(payload, to: message, replyTo: request.replyTo, rejected: rejected)
    }

    struct WalksFailure: Error {
        let code: String
        let message: String
    }

    private func walksReply(_ request: WalksRequest) async throws -> Data {
        do {
            try DeviceID.validate(request.device)
        } catch {
            throw WalksFailure(code: "badRequest", message: error.message)
        }
        guard let id = request.walk else {
            let limit = request.limit ?? 50
            guard (1...Self.maximumWalks).contains(limit) else {
                throw WalksFailure(code: "badRequest", message: "'limit' is \(limit); expected 1 to \(Self.maximumWalks)")
            }
            let walks = try await store.walks(device: request.device, limit: limit)
            return try JSONEncoder.journal.encode(
                WalksReply.walks(device: request.device, walks: walks.map(JournalWalk.init), correlationId: request.correlationId))
        }
        let format = request.format ?? "json"
        guard format == "json" || format == "gpx" else {
            throw WalksFailure(code: "badRequest", message: "'format' is '\(format.prefix(20))'; expected json or gpx")
        }
        guard let walk = try await store.walk(id: id), walk.device == request.device else {
            throw WalksFailure(code: "notFound", message: "\(request.device) has no walk '\(id.prefix(60))'")
        }
        let current = devices[walk.device]?.walk?.id == walk.id ? devices[walk.device]?.walk ?? walk : walk
        let route = try await store.route(walk: walk.id)
        let points = try await store.photoPoints(walk: walk.id)
        if format == "gpx" {
            let gpx = Self.gpx(current, route: route, points: points)
            return try JSONEncoder.journal.encode(WalksReply.gpx(device: walk.device, walk: walk.id, gpx: gpx, correlationId: request.correlationId))
        }
        return try JSONEncoder.journal.encode(
            WalksReply.walk(
                device: walk.device, walk: JournalWalk(current), route: route.map(JournalRoutePoint.init),
                points: points.map { JournalPhotoPoint($0, urlPrefix: configuration.photoURLPrefix) }, correlationId: request.correlationId))
    }

    /// The walk as GPX 1.1: its route as one track, and a waypoint per photo linking to the photo's page.
    static func gpx(_ walk: Walk, route: [RoutePoint], points: [WalkPhotoPoint]) -> String {
        let day = Timestamp.format(Date(timeIntervalSince1970: walk.started)).prefix(10)
        let waypoints = points.compactMap { stored -> GPXDocument.Waypoint? in
            guard stored.status == .found, let photo = stored.photo else { return nil }
            let credit = [photo.author.map { "© \($0)" }, photo.license].compactMap { $0 }.joined(separator: ", ")
            return GPXDocument.Waypoint(
                coordinate: stored.point.coordinate, time: stored.point.time, name: photo.title.isEmpty ? "Photo \(stored.point.index)" : photo.title,
                description: "\(Int(stored.point.distance)) m along the walk. \(credit)", link: photo.pageURL, linkText: "The photo's page")
        }
        let name = walk.name ?? "Walk of \(walk.device) on \(day)"
        return GPXDocument(
            name: name, description: "Recorded by StepCompass (\(Int(walk.distance)) m).", time: walk.started, track: route, waypoints: waypoints
        ).xml()
    }

    static func errorReply(_ code: String, _ message: String, correlationId: CorrelationID?) -> Data {
        ErrorReply(code: code, message: message, correlationId: correlationId).data
    }
}
