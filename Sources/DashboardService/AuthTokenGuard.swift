import Hummingbird

/// Refuses the requests that do not present the dashboard's access token (`--auth-token`, `--auth-token-file`) with
/// 401, the API's error body and `WWW-Authenticate: Bearer`; ``AuthTokenPolicy`` decides which requests need it and
/// how a token is presented.
///
/// Added to the router before its routes (and before ``CrossSiteGuard``), so nothing but the page itself is answered
/// without the token. Without a token configured every request for a loopback host name passes, and those for another
/// name get 403 (DNS rebinding). The token is never logged.
struct AuthTokenGuard<Context: RequestContext>: RouterMiddleware {
    let policy: AuthTokenPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        switch policy.decide(method: request.method, path: request.uri.path, host: request.head.authority, headers: request.headers) {
        case .allow:
            return try await next(request, context)
        case .foreignHost(let reason):
            return JSONResponse.error("forbidden", reason, status: .forbidden)
        case .missing(let reason), .wrong(let reason):
            var response = JSONResponse.error("unauthorized", reason, status: .unauthorized)
            response.headers[.wwwAuthenticate] = "Bearer"
            return response
        }
    }
}
