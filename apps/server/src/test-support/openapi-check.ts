import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';

const specPath = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'openapi.yaml',
);

interface ResponseSpec {
  readonly $ref?: string;
  readonly content?: Record<string, { readonly schema?: unknown }>;
}
interface OperationSpec {
  readonly responses: Record<string, ResponseSpec>;
}
interface Spec {
  readonly paths: Record<string, Record<string, OperationSpec>>;
  readonly components: { readonly responses: Record<string, ResponseSpec> };
}

const spec = parse(readFileSync(specPath, 'utf8')) as Spec;
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
ajv.addFormat('binary', true);
ajv.addSchema(spec, 'openapi');

const pointer = (...parts: string[]): string =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * Checks a real response against openapi.yaml: the operation must document the status (or a
 * default), and a JSON body must match its schema. Throws with ajv's errors otherwise.
 */
export function checkResponse(
  method: string,
  pathTemplate: string,
  status: number,
  body: unknown,
): void {
  const operation = spec.paths[pathTemplate]?.[method.toLowerCase()];
  if (operation === undefined) {
    throw new Error(`openapi.yaml has no ${method} ${pathTemplate}`);
  }
  const key = String(status) in operation.responses ? String(status) : 'default';
  let response = operation.responses[key];
  if (response === undefined) {
    throw new Error(
      `openapi.yaml does not document status ${status} for ${method} ${pathTemplate}`,
    );
  }
  let schemaPointer = `openapi#/${pointer('paths', pathTemplate, method.toLowerCase(), 'responses', key)}`;
  if (response.$ref !== undefined) {
    const name = response.$ref.split('/').pop()!;
    response = spec.components.responses[name]!;
    schemaPointer = `openapi#/${pointer('components', 'responses', name)}`;
  }
  const schema = response.content?.['application/json']?.schema;
  if (schema === undefined) {
    if (body !== undefined && body !== '') {
      throw new Error(`${method} ${pathTemplate} ${status}: openapi.yaml documents no JSON body`);
    }
    return;
  }
  const validate = ajv.compile({
    $ref: `${schemaPointer}/${pointer('content', 'application/json', 'schema')}`,
  });
  if (!validate(body)) {
    throw new Error(
      `${method} ${pathTemplate} ${status} does not match openapi.yaml: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
    );
  }
}

/** Checks a text message of the live channel against the LiveMessage schema. */
export function checkLiveMessage(message: unknown): void {
  const validate = ajv.getSchema('openapi#/components/schemas/LiveMessage')!;
  if (validate(message) !== true) {
    throw new Error(`live message does not match openapi.yaml: ${ajv.errorsText(validate.errors)}`);
  }
}

/** Checks a text message of the collector channel (/api/profile) against openapi.yaml. */
export function checkProfileMessage(
  direction: 'from-collector' | 'from-server',
  message: unknown,
): void {
  const name = direction === 'from-server' ? 'ProfileServerMessage' : 'ProfileCollectorMessage';
  const validate = ajv.getSchema(`openapi#/components/schemas/${name}`)!;
  if (validate(message) !== true) {
    throw new Error(
      `${name} does not match openapi.yaml: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(message)}`,
    );
  }
}
