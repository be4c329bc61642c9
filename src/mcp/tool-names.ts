import type { Domain } from '../core/domain/index.js';
import { latestApiVersion } from '../core/resources/wire.js';
import { resourceTools } from './tools.js';

/**
 * The names of the tools {@link createMcpHandler} serves for `domain` (`list_bookings`, `get_booking` …),
 * derived as it derives them: what an operator may restrict an OAuth client's tools to.
 */
export function mcpToolNames(domain: Domain): string[] {
  const services = Object.values(domain.resources);
  const apiVersion = latestApiVersion(services.map((s) => s.resource));
  return services.flatMap((service) => resourceTools(service, { apiVersion }).map((tool) => tool.name));
}
