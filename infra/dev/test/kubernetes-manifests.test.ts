import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLOSE_AFTER_DRAIN_MS } from '@tm/kit';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, type IContainer, type IPodSpec, Namespace, Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadBillingConfig } from '../../../services/billing/src/config.js';
import { loadGatewayConfig } from '../../../services/gateway/src/config.js';
import { loadMemoryConfig } from '../../../services/memory/src/config.js';
import { loadTelemetryConfig } from '../../../services/telemetry/src/config.js';
import { loadTemplateConfig } from '../../../services/template/src/config.js';
import { loadWebhooksConfig } from '../../../services/webhooks/src/config.js';

// infra/kubernetes/ checked offline: every object against the Kubernetes OpenAPI schemas (the
// kubernetes-models package's compiled validators, no download), then what a schema cannot see: that
// the manifests run the same images, settings, ports and stop times as docker-compose.yml and the code.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const k8sDir = join(root, 'infra', 'kubernetes');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [field: string]: unknown;
}

/** The kinds the manifests may use, each with its schema's validator; any other kind is an error. */
const validators: Record<string, (object: K8sObject) => void> = {
  'apps/v1/Deployment': (o) => new Deployment(o as never).validate(),
  'batch/v1/Job': (o) => new Job(o as never).validate(),
  'v1/Service': (o) => new Service(o as never).validate(),
  'v1/ConfigMap': (o) => new ConfigMap(o as never).validate(),
  'v1/Namespace': (o) => new Namespace(o as never).validate(),
  'autoscaling/v2/HorizontalPodAutoscaler': (o) => new HorizontalPodAutoscaler(o as never).validate(),
  'policy/v1/PodDisruptionBudget': (o) => new PodDisruptionBudget(o as never).validate(),
};

/** The schema errors of one object, '' when it is valid. */
function schemaErrors(object: K8sObject): string {
  const validate = validators[`${object.apiVersion}/${object.kind}`];
  if (!validate) return `no schema for ${object.apiVersion} ${object.kind}`;
  try {
    validate(object);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? yamlFiles(join(dir, entry.name))
      : entry.name.endsWith('.yaml')
        ? [join(dir, entry.name)]
        : [],
  );
}
const isKustomization = (file: string) => file.endsWith('kustomization.yaml');
const helmValues = join(k8sDir, 'nats-values.yaml');
const manifestFiles = yamlFiles(k8sDir).filter((file) => !isKustomization(file) && file !== helmValues);
const objects = manifestFiles.flatMap((file) =>
  parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => {
    expect(doc.errors, file).toEqual([]);
    return { file: relative(k8sDir, file), object: doc.toJS() as K8sObject };
  }),
);
const ofKind = <T>(kind: string) =>
  objects.filter(({ object }) => object.kind === kind).map(({ object }) => object as unknown as T);
const named = <T extends { metadata?: { name?: string } }>(items: T[], name: string) => {
  const found = items.find((item) => item.metadata?.name === name);
  if (!found) throw new Error(`no ${name}`);
  return found;
};

interface Workload {
  metadata: { name: string };
  spec: { template: { spec: IPodSpec } };
}
const deployments = ofKind<IDeployment & Workload>('Deployment');
const jobs = ofKind<Workload>('Job');
const workloads = [...deployments, ...jobs];
const container = (workload: Workload): IContainer => {
  const [only, ...rest] = workload.spec.template.spec.containers;
  expect(rest, workload.metadata.name).toEqual([]);
  return only as IContainer;
};
const settings = named(
  ofKind<{ metadata: { name: string }; data: Record<string, string> }>('ConfigMap'),
  'tm-settings',
);

/**
 * What a workload's process finds in its environment: the ConfigMap it loads and its own variables,
 * a Secret's key standing for a value of the right shape (never a real one: none is committed).
 */
function environment(workload: Workload): Record<string, string> {
  const { envFrom = [], env = [] } = container(workload);
  const result: Record<string, string> = {};
  for (const source of envFrom) {
    expect(source.configMapRef?.name, workload.metadata.name).toBe(settings.metadata.name);
    Object.assign(result, settings.data);
  }
  for (const variable of env) {
    const secret = variable.valueFrom?.secretKeyRef;
    if (secret) {
      expect({ name: secret.name, key: secret.key }).toEqual({ name: 'tm-secrets', key: variable.name });
      result[variable.name] = variable.name.endsWith('_DATABASE_URL')
        ? `postgresql://tm:secret@pg.example:5432/${variable.name.split('_')[0]?.toLowerCase()}`
        : 'x'.repeat(48);
    } else result[variable.name] = variable.value ?? '';
  }
  return result;
}

interface ComposeService {
  environment?: Record<string, unknown>;
  build?: { args?: Record<string, string> };
}
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const built = Object.values(compose.services).flatMap((s) => (s.build?.args?.SERVICE ? [s] : []));
const serviceOf = (s: ComposeService) => s.build?.args?.SERVICE as string;
const busServices = ['memory', 'billing', 'telemetry', 'template', 'webhooks'];
const configLoaders: Record<string, (env: NodeJS.ProcessEnv) => unknown> = {
  memory: loadMemoryConfig,
  billing: loadBillingConfig,
  telemetry: loadTelemetryConfig,
  template: loadTemplateConfig,
  webhooks: loadWebhooksConfig,
  gateway: loadGatewayConfig,
};

describe('infra/kubernetes', () => {
  it('when every manifest is read, then each object is valid against the Kubernetes schema of its kind', () => {
    expect(objects.length).toBeGreaterThan(10);
    const invalid = objects
      .map(({ file, object }) => ({
        file,
        kind: object.kind,
        name: object.metadata?.name,
        errors: schemaErrors(object),
      }))
      .filter(({ errors }) => errors !== '');

    expect(invalid).toEqual([]);
  });

  it('when a field has the wrong type or the kind is unknown, then the schema check refuses it', () => {
    const memory = structuredClone(named(deployments, 'memory')) as unknown as K8sObject & Workload;
    const port = container(memory).ports?.[0];
    if (port) (port as { containerPort: unknown }).containerPort = '9465';
    const replicas = structuredClone(named(deployments, 'memory')) as unknown as K8sObject & {
      spec: { replicas: unknown };
    };
    replicas.spec.replicas = 'three';

    expect(schemaErrors(memory)).toContain('containerPort must be integer');
    expect(schemaErrors(replicas)).toBe('data/spec/replicas must be integer');
    expect(schemaErrors({ ...memory, apiVersion: 'apps/v1beta1' })).toBe(
      'no schema for apps/v1beta1 Deployment',
    );
  });

  it('when the kustomizations are read, then together they list every manifest once and nothing missing', () => {
    const listed: string[] = [];
    for (const file of yamlFiles(k8sDir).filter(isKustomization)) {
      const { resources = [] } = parse(readFileSync(file, 'utf8')) as { resources?: string[] };
      for (const resource of resources) {
        const path = join(dirname(file), resource);
        // A directory is another kustomization (settings/, shared by both steps); a file is a manifest.
        if (!resource.endsWith('.yaml')) expect(yamlFiles(path).some(isKustomization), resource).toBe(true);
        else listed.push(relative(k8sDir, path));
      }
    }

    expect(listed.sort()).toEqual(manifestFiles.map((file) => relative(k8sDir, file)).sort());
  });

  it('when docker-compose.yml builds a SERVICE, then a Deployment (a Job for migrate) of that name runs its image, and nothing else runs', () => {
    const [tag] = new Set(workloads.map((w) => container(w).image?.split(':')[1]));

    for (const service of built.map(serviceOf)) {
      const workload = named(service === 'migrate' ? jobs : deployments, service);
      expect(container(workload).image).toBe(`tm-${service}:${tag}`);
    }
    expect(workloads.map((w) => w.metadata.name).sort()).toEqual(built.map(serviceOf).sort());
    expect(settings.data.DEPLOYMENT_VERSION).toBe(tag);
  });

  it('when compose gives a service a variable, then its manifest sets it too (another service’s database URL excepted)', () => {
    for (const service of built) {
      const name = serviceOf(service);
      const workload = named(workloads, name);
      const own = Object.keys(environment(workload));
      // Each pod gets only its own database's credentials; compose hands all five to every container.
      const expected = Object.keys(service.environment ?? {}).filter(
        (variable) =>
          name === 'migrate' ||
          !variable.endsWith('_DATABASE_URL') ||
          variable === `${name.toUpperCase()}_DATABASE_URL`,
      );

      expect({ name, missing: expected.filter((variable) => !own.includes(variable)) }).toEqual({
        name,
        missing: [],
      });
    }
  });

  it('when a service starts with what its manifest gives it, then its settings validate, with three JetStream copies', () => {
    for (const [name, load] of Object.entries(configLoaders)) {
      const config = load(environment(named(deployments, name))) as Record<string, unknown>;

      expect({ name, replicas: config.JETSTREAM_REPLICAS }).toEqual({ name, replicas: 3 });
    }
    expect(Number(settings.data.JETSTREAM_REPLICAS)).toBe(3);
  });

  it('when the settings and secrets are split, then no secret value sits in the ConfigMap and no Secret object is committed', () => {
    expect(
      Object.keys(settings.data).filter((key) => /SECRET|PASSWORD|DATABASE_URL|_KEY$/.test(key)),
    ).toEqual([]);
    expect(objects.filter(({ object }) => object.kind === 'Secret')).toEqual([]);
    // PostgreSQL is external or operator-managed: no database runs from these manifests.
    expect(workloads.map((w) => container(w).image).filter((image) => /postgres/.test(image ?? ''))).toEqual(
      [],
    );
  });

  it('when the gateway is probed, then readiness asks the health route and liveness the live route, on the port it listens on', () => {
    const gateway = named(deployments, 'gateway');
    const { readinessProbe, livenessProbe, startupProbe, ports = [] } = container(gateway);
    const config = loadGatewayConfig(environment(gateway)) as {
      GATEWAY_PORT: number;
      GATEWAY_METRICS_PORT: number;
    };
    const portNamed = (name: unknown) => ports.find((p) => p.name === name)?.containerPort;

    expect(readinessProbe?.httpGet?.path).toBe('/api/v1/infrastructure/health');
    expect(livenessProbe?.httpGet?.path).toBe('/api/v1/infrastructure/health/live');
    expect(startupProbe?.httpGet?.path).toBe('/api/v1/infrastructure/health/live');
    for (const probe of [readinessProbe, livenessProbe, startupProbe]) {
      expect(portNamed(probe?.httpGet?.port)).toBe(config.GATEWAY_PORT);
    }
    expect(portNamed('metrics')).toBe(config.GATEWAY_METRICS_PORT);
    // The routes as the code serves them, and the route the image's HEALTHCHECK asks.
    expect(read('services/gateway/src/entry-points/http/server.ts')).toContain(
      "app.get('/api/v1/infrastructure/health/live', liveness)",
    );
    expect(read('services/gateway/src/entry-points/http/route-operations.ts')).toContain(
      "['GET', '/api/v1/infrastructure/health', 'infrastructure.health']",
    );
    expect(read('infra/docker/healthcheck.mjs')).toContain('/api/v1/infrastructure/health`');
    const service = named(
      ofKind<{ metadata: { name: string }; spec: { ports: { targetPort: unknown }[] } }>('Service'),
      'gateway',
    );
    expect(service.spec.ports.map((p) => portNamed(p.targetPort))).toEqual([config.GATEWAY_PORT]);
  });

  it('when a bus service is probed, then every probe asks /metrics on the metrics port its settings give it', () => {
    const healthcheck = read('infra/docker/healthcheck.mjs');
    expect(read('libs/kit/src/metrics/metrics-server.ts')).toContain("req.url?.split('?')[0] !== '/metrics'");

    for (const name of busServices) {
      const workload = named(deployments, name);
      const { readinessProbe, livenessProbe, startupProbe, ports = [] } = container(workload);
      const config = configLoaders[name]?.(environment(workload)) as Record<string, unknown>;
      const metricsPort = config[`${name.toUpperCase()}_METRICS_PORT`];

      expect(ports, name).toEqual([{ name: 'metrics', containerPort: metricsPort }]);
      for (const probe of [readinessProbe, livenessProbe, startupProbe]) {
        expect({ name, probe: probe?.httpGet }).toEqual({
          name,
          probe: { path: '/metrics', port: 'metrics' },
        });
      }
      expect(healthcheck, name).toContain(`${name}: ${metricsPort}`);
      expect(
        (workload.spec.template as { metadata?: { annotations?: Record<string, string> } }).metadata
          ?.annotations,
      ).toMatchObject({
        'prometheus.io/port': String(metricsPort),
      });
    }
  });

  it('when a pod is stopped, then its grace period holds its preStop pause, its drain and the close after it', () => {
    const drainMs = Number(settings.data.DRAIN_TIMEOUT_MS);

    for (const deployment of deployments) {
      const { terminationGracePeriodSeconds = 30 } = deployment.spec.template.spec;
      const pauseMs = (container(deployment).lifecycle?.preStop?.sleep?.seconds ?? 0) * 1000;

      expect({
        name: deployment.metadata.name,
        fits: pauseMs + drainMs + CLOSE_AFTER_DRAIN_MS < terminationGracePeriodSeconds * 1000,
      }).toEqual({
        name: deployment.metadata.name,
        fits: true,
      });
    }
  });

  it('when a pod runs, then as a non-root user without privilege escalation, within requests and limits', () => {
    for (const workload of workloads) {
      const { name } = workload.metadata;
      const pod = workload.spec.template.spec;
      const { securityContext, resources } = container(workload);

      expect({ name, ...pod.securityContext }).toMatchObject({ name, runAsNonRoot: true, runAsUser: 1000 });
      expect({ name, ...securityContext }).toMatchObject({
        name,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
      expect(Object.keys(resources?.requests ?? {}).sort(), name).toEqual(['cpu', 'memory']);
      expect(Object.keys(resources?.limits ?? {}).sort(), name).toEqual(['cpu', 'memory']);
    }
    // The image's user, the one the pods name by number.
    expect(read('Dockerfile')).toMatch(/^USER node$/m);
  });

  it('when load grows, then memory and the gateway scale by CPU and every Deployment has a disruption budget', () => {
    const autoscalers = ofKind<{
      spec: { scaleTargetRef: { kind: string; name: string }; minReplicas: number };
    }>('HorizontalPodAutoscaler');
    const budgets = ofKind<{ spec: { selector: { matchLabels: Record<string, string> } } }>(
      'PodDisruptionBudget',
    );

    expect(autoscalers.map((a) => a.spec.scaleTargetRef.name).sort()).toEqual(['gateway', 'memory']);
    for (const { spec } of autoscalers) {
      const target = named(deployments, spec.scaleTargetRef.name);
      expect(spec.scaleTargetRef.kind).toBe('Deployment');
      expect(target.spec?.replicas).toBe(spec.minReplicas);
    }
    expect(named(autoscalers as never[], 'memory')).toMatchObject({ spec: { minReplicas: 3 } });
    for (const deployment of deployments) {
      const labels = deployment.spec?.template.metadata?.labels ?? {};
      const covering = budgets.filter(({ spec }) =>
        Object.entries(spec.selector.matchLabels).every(([key, value]) => labels[key] === value),
      );
      expect(covering, deployment.metadata.name).toHaveLength(1);
    }
  });

  it("when NATS is installed from its chart with nats-values.yaml, then three nodes keep JetStream on file storage and the services' address and replica count match", () => {
    const values = parse(readFileSync(helmValues, 'utf8')) as {
      config: {
        cluster: { enabled: boolean; replicas: number };
        jetstream: {
          enabled: boolean;
          fileStore: { enabled: boolean; pvc: { enabled: boolean } };
          memoryStore: { enabled: boolean };
        };
        monitor: { enabled: boolean };
      };
    };

    expect(values.config).toMatchObject({
      cluster: { enabled: true, replicas: 3 },
      jetstream: {
        enabled: true,
        fileStore: { enabled: true, pvc: { enabled: true } },
        memoryStore: { enabled: false },
      },
      monitor: { enabled: true },
    });
    expect(Number(settings.data.JETSTREAM_REPLICAS)).toBe(values.config.cluster.replicas);
    // The release is named `nats` (README.md), so its client Service is nats:4222.
    expect(settings.data.NATS_URL).toBe('nats://nats:4222');
    expect(readFileSync(helmValues, 'utf8')).toContain('helm upgrade --install nats nats/nats');
  });
});
