/** A JSON response with the given status and extra headers. */
export function jsonResponse(status: number, body: unknown, headers: HeadersInit = {}): Response {
  // Set the type before constructing: a string body would otherwise get `text/plain` from the Response constructor.
  const merged = new Headers(headers);
  if (!merged.has('content-type')) merged.set('content-type', 'application/json; charset=utf-8');
  return new Response(JSON.stringify(body), { status, headers: merged });
}
