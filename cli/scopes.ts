import { openApiDocument, scopeTable } from '../api/http/openapi.ts';
import { apiRoutes } from '../app/v1-routes.ts';
import { loadConfig } from '../app/config.ts';
import { FEATURES } from '../app/features.ts';

/** Prints the scope table of every /v1 endpoint (docs/api.md "Scopes" comes from here). */
export async function scopesCommand(): Promise<number> {
  console.log(scopeTable(apiRoutes(FEATURES, loadConfig())));
  return 0;
}

/** Prints the OpenAPI 3.1 document served at /v1/openapi.json. */
export async function openApiCommand(): Promise<number> {
  const config = loadConfig();
  console.log(JSON.stringify(openApiDocument(apiRoutes(FEATURES, config), config), null, 2));
  return 0;
}
