// The two calls of the Confluent schema registry REST API that the codec needs, over fetch (tested
// against Apicurio Registry's Confluent-compatible API, infra/schema-registry.sh). A subject is
// `<topic>-value`, as Confluent's default subject naming has it.
import { DependencyError } from '../errors.ts';

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';
const TIMEOUT_MS = 10_000;

/** What the codec asks of a registry; the in-memory one of the unit tests answers the same. */
export interface SchemaRegistry {
  /** Registers a JSON Schema under `subject`; a schema the subject already holds keeps its id (idempotent). */
  register(subject: string, schema: object): Promise<number>;
  /** The subjects that hold schema `id`; empty when the registry does not know the id. */
  subjectsOf(id: number): Promise<string[]>;
}

export class SchemaRegistryClient implements SchemaRegistry {
  readonly #url: string;

  constructor(url: string) {
    this.#url = url.replace(/\/+$/, '');
  }

  async register(subject: string, schema: object): Promise<number> {
    const res = await this.#call('POST', `/subjects/${encodeURIComponent(subject)}/versions`, { schemaType: 'JSON', schema: JSON.stringify(schema) });
    return (res as { id: number }).id;
  }

  async subjectsOf(id: number): Promise<string[]> {
    const res = await this.#call('GET', `/schemas/ids/${id}/versions`);
    return res === undefined ? [] : (res as { subject: string }[]).map((v) => v.subject);
  }

  /** The parsed answer, undefined for 404; anything else unexpected is the registry failing (retryable). */
  async #call(method: string, path: string, body?: object): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(this.#url + path, {
        method,
        headers: { accept: CONTENT_TYPE, ...(body === undefined ? {} : { 'content-type': CONTENT_TYPE }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new DependencyError('schema_registry', `${method} ${path} failed: ${(err as Error).message}`, { cause: err });
    }
    if (res.status === 404) return undefined;
    const text = await res.text();
    if (!res.ok) throw new DependencyError('schema_registry', `${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text);
  }
}
