import Hummingbird

/// Refuses the state-changing API requests a page of another site makes the browser send (403), and those whose
/// body is not declared as JSON (415), with the API's error body; ``CrossSitePolicy`` decides.
///
/// Added to the router before its routes, so it sees every request; GET and HEAD pass untouched.
struct CrossSiteGuard<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let verdict = CrossSitePolicy.decide(
            method: request.method, path: request.uri.path, host: request.head.authority, headers: request.headers)
        switch verdict {
        case .allow:
            return try await next(request, context)
        case .forbidden(let reason):
            return JSONResponse.error("forbidden", reason, status: .forbidden)
        case .unsupportedMediaType(let reason):
            return JSONResponse.error("unsupportedMediaType", reason, status: .unsupportedMediaType)
        }
    }
}
