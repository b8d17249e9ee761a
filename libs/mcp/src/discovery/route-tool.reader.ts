import { CUSTOM_ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type {
  RouteArgMetadata,
  RouteToolBinding,
  RouteToolNamedArgument,
  RouteToolRequestParam,
  RouteToolSource,
} from '../context/route-tool.binding.js';
import { compileSchema, type JsonSchemaObject, type SchemaInput } from '../schema/index.js';
import { McpDefinitionError } from './mcp-definition.error.js';

/** What discovery knows of a controller route that is also a tool. */
export interface RouteToolMethod {
  /** `Class.method`, for errors. */
  readonly where: string;
  /** The tool's name, for schema errors. */
  readonly toolName: string;
  /** Its route parameter decorators (`ROUTE_ARGS_METADATA`). */
  readonly params: Readonly<Record<string, RouteArgMetadata>>;
  /** `design:paramtypes`. */
  readonly paramTypes: readonly unknown[];
  /** The method's `length`. */
  readonly length: number;
  /** Whether `@McpTool({ input })` was given: the route's parameters then do not shape the schema. */
  readonly declaresInput: boolean;
}

/** A route tool as the handler factory runs it, and the input schema its parameters give (when `input` is absent). */
export interface RouteToolDeclaration {
  readonly binding: RouteToolBinding;
  /** `undefined`: the tool takes no arguments, or `@McpTool({ input })` says what it takes. */
  readonly input?: JsonSchemaObject;
}

const SOURCES: Partial<Record<RouteParamtypes, RouteToolSource>> = {
  [RouteParamtypes.BODY]: 'body',
  [RouteParamtypes.QUERY]: 'query',
  [RouteParamtypes.PARAM]: 'param',
};
const FROM_REQUEST: Partial<Record<RouteParamtypes, RouteToolRequestParam['kind']>> = {
  [RouteParamtypes.REQUEST]: 'request',
  [RouteParamtypes.HEADERS]: 'headers',
  [RouteParamtypes.IP]: 'ip',
};
const DECORATOR_NAMES: Record<RouteToolSource, string> = { body: '@Body', query: '@Query', param: '@Param' };
/** What a tool call cannot give, by decorator: each fails bootstrap. */
const UNSUPPORTED: Partial<Record<RouteParamtypes, string>> = {
  [RouteParamtypes.RESPONSE]: '@Res() (a tool call has no HTTP response: return the value instead)',
  [RouteParamtypes.NEXT]: '@Next() (a tool call has no next handler)',
  [RouteParamtypes.SESSION]: '@Session() (a tool call has no HTTP session)',
  [RouteParamtypes.FILE]: '@UploadedFile() (a tool call carries no upload)',
  [RouteParamtypes.FILES]: '@UploadedFiles() (a tool call carries no upload)',
  [RouteParamtypes.HOST]: '@HostParam() (a tool call has no route host)',
  [RouteParamtypes.RAW_BODY]: '@RawBody() (a tool call has no raw body)',
  [RouteParamtypes.COOKIES]: '@Cookies() (a tool call carries no route cookies)',
  [RouteParamtypes.SIGNED_COOKIES]: '@SignedCookies() (a tool call carries no route cookies)',
};
/** Declared types that say nothing about a whole object's shape. */
const SHAPELESS = new Set<unknown>([
  undefined,
  Object,
  String,
  Number,
  Boolean,
  Array,
  Date,
  Map,
  Set,
  Promise,
  Function,
]);

/**
 * Reads how a controller route that is also a tool takes its parameters from a `tools/call`, and the input schema they
 * give, or fails bootstrap naming the method:
 *
 * - `@Body()`, `@Query()` or `@Param()` without a name (at most one source): receives the arguments no other parameter
 *   names; its DTO class (the parameter's type) gives the schema's properties.
 * - `@Body('x')`, `@Query('x')`, `@Param('x')`: the argument `x`, typed from the parameter's type (`string`, `number`,
 *   `boolean`, `array`, else any); a `@Param` is required, the others optional.
 * - `@Req()`, `@Headers()`, `@Ip()`: the synthetic request (and its headers, ip): not arguments.
 * - custom decorators (`createParamDecorator`): run with the synthetic request; not arguments.
 * - anything else (`@Res()`, `@UploadedFile()`, MCP parameter decorators, a parameter without a decorator) is refused.
 */
export function readRouteTool(method: RouteToolMethod): RouteToolDeclaration {
  const { where } = method;
  const named: RouteToolNamedArgument[] = [];
  const fromRequest: RouteToolRequestParam[] = [];
  const piped: Record<string, RouteArgMetadata> = {};
  const wholes: Array<{ source: RouteToolSource; index: number }> = [];
  const taken = new Set<number>();
  // In parameter order (decorators write them last first), so messages name them as the method lists them.
  for (const [key, param] of Object.entries(method.params).sort(([, a], [, b]) => a.index - b.index)) {
    taken.add(param.index);
    if (key.includes(CUSTOM_ROUTE_ARGS_METADATA)) {
      piped[key] = param;
      continue;
    }
    const type = Number(key.split(':')[0]) as RouteParamtypes;
    const source = SOURCES[type];
    if (source) {
      piped[key] = param;
      if (param.data === undefined) wholes.push({ source, index: param.index });
      else if (typeof param.data === 'string' && param.data !== '') named.push({ source, name: param.data });
      else
        throw new McpDefinitionError(
          where,
          `parameter ${param.index}: ${DECORATOR_NAMES[source]}() takes a property name (a string) on a tool`,
        );
      continue;
    }
    const kind = FROM_REQUEST[type];
    if (kind) {
      fromRequest.push(
        typeof param.data === 'string' ? { index: param.index, kind, name: param.data } : { index: param.index, kind },
      );
      continue;
    }
    const unsupported = UNSUPPORTED[type] ?? `a route parameter decorator of type ${type}`;
    throw new McpDefinitionError(
      where,
      `parameter ${param.index} uses ${unsupported}, which a controller route cannot use as an MCP tool`,
    );
  }
  const arity = Math.max(method.paramTypes.length, method.length, ...[...taken].map((index) => index + 1));
  for (let index = 0; index < arity; index++) {
    if (!taken.has(index)) {
      throw new McpDefinitionError(
        where,
        `parameter ${index} has no route decorator: every parameter of a controller route that is an MCP tool needs one ` +
          "(@Body(), @Query('name'), @Param('name'), @Req(), @Headers(), @Ip() or a custom decorator); read the MCP " +
          'context with getMcpInvocationContext(request)',
      );
    }
  }
  const sources = new Set(wholes.map(({ source }) => source));
  if (sources.size > 1) {
    throw new McpDefinitionError(
      where,
      `${[...sources].map((source) => `${DECORATOR_NAMES[source]}()`).join(' and ')} both take the whole arguments object: ` +
        "only one of @Body(), @Query() and @Param() may; name the others' properties (@Query('page'))",
    );
  }
  const bySource = new Map<string, RouteToolSource>();
  for (const { source, name } of named) {
    const earlier = bySource.get(name);
    if (earlier !== undefined && earlier !== source) {
      throw new McpDefinitionError(
        where,
        `the argument "${name}" is read by both ${DECORATOR_NAMES[earlier]}('${name}') and ${DECORATOR_NAMES[source]}('${name}')`,
      );
    }
    bySource.set(name, source);
  }
  const binding: RouteToolBinding = { rest: wholes[0]?.source, named, fromRequest, piped, arity };
  return method.declaresInput ? { binding } : { binding, input: inputSchema(method, wholes[0], bySource) };
}

/** The tool's input schema from the route's parameters: the whole object's DTO, plus one property per named argument. */
function inputSchema(
  method: RouteToolMethod,
  whole: { source: RouteToolSource; index: number } | undefined,
  named: ReadonlyMap<string, RouteToolSource>,
): JsonSchemaObject | undefined {
  const { where, paramTypes, params } = method;
  if (!whole && named.size === 0) return undefined;
  let base: JsonSchemaObject = { type: 'object', additionalProperties: false };
  if (whole) {
    const dto = paramTypes[whole.index];
    if (typeof dto !== 'function' || SHAPELESS.has(dto)) {
      throw new McpDefinitionError(
        where,
        `${DECORATOR_NAMES[whole.source]}() (parameter ${whole.index}) has no DTO class to derive the tool's input schema from: ` +
          'type the parameter with a class-validator DTO, or declare the schema with @McpTool({ input })',
      );
    }
    base = compileSchema(dto as SchemaInput, {
      role: 'input',
      owner: `tool "${method.toolName}" (${where})`,
    }).jsonSchema;
  }
  const properties: Record<string, unknown> = { ...(base.properties as Record<string, unknown> | undefined) };
  const required = new Set<string>(Array.isArray(base.required) ? (base.required as string[]) : []);
  const typeOf = new Map<string, unknown>();
  for (const [key, param] of Object.entries(params)) {
    if (SOURCES[Number(key.split(':')[0]) as RouteParamtypes] && typeof param.data === 'string')
      typeOf.set(param.data, paramTypes[param.index]);
  }
  for (const [name, source] of named) {
    if (whole && Object.hasOwn(properties, name)) {
      throw new McpDefinitionError(
        where,
        `the argument "${name}" of ${DECORATOR_NAMES[source]}('${name}') is also a property of the ${DECORATOR_NAMES[whole.source]}() DTO; rename one`,
      );
    }
    properties[name] = propertySchema(typeOf.get(name));
    // A path parameter is always present over HTTP; query and body properties may be absent.
    if (source === 'param') required.add(name);
  }
  return { ...base, type: 'object', properties, ...(required.size > 0 && { required: [...required] }) };
}

/** The schema of a named argument, from the parameter's declared type. */
function propertySchema(type: unknown): JsonSchemaObject {
  if (type === String) return { type: 'string' };
  if (type === Number) return { type: 'number' };
  if (type === Boolean) return { type: 'boolean' };
  if (type === Array) return { type: 'array' };
  return {};
}
