/** A JSON response with the given status and extra headers. */
export function jsonResponse(status: number, body: unknown, headers: HeadersInit = {}): Response {
  const result = new Response(JSON.stringify(body), { status, headers });
  if (!result.headers.has('content-type'))
    result.headers.set('content-type', 'application/json; charset=utf-8');
  return result;
}
