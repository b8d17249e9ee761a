import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { McpHandlerFactory } from '../context/mcp-handler.factory.js';
import type { McpCompletionProvider } from '../decorators/completion-provider.interface.js';
import type { McpPromptOptions } from '../decorators/mcp-prompt.decorator.js';
import type { McpResourceTemplateOptions } from '../decorators/mcp-resource-template.decorator.js';
import type { McpResourceOptions } from '../decorators/mcp-resource.decorator.js';
import type { McpToolOptions } from '../decorators/mcp-tool.decorator.js';
import { UriTemplate } from '../protocol/uri-template.js';
import { compileSchema, type CompiledSchema, type SchemaInput } from '../schema/index.js';
import { McpDefinitionError } from './mcp-definition.error.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';
import { McpRegistry } from './mcp.registry.js';
import type { BoundCompletion } from './registry-entries.interface.js';

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;
const NO_ARGUMENTS_SCHEMA = { type: 'object', additionalProperties: false };

/**
 * Finds `@McpTool`, `@McpPrompt`, `@McpResource` and `@McpResourceTemplate` methods on every provider and
 * controller at bootstrap, checks them, and fills the registry. Any misuse fails bootstrap with a message that
 * names the class and method.
 */
@Injectable()
export class McpExplorer implements OnApplicationBootstrap {
  private readonly logger = new Logger('McpExplorer');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: McpMetadataAccessor,
    private readonly handlers: McpHandlerFactory,
    private readonly registry: McpRegistry,
  ) {}

  onApplicationBootstrap(): void {
    const wrappers = [...this.discovery.getProviders(), ...this.discovery.getControllers()];
    const seen = new Set<object>();
    for (const wrapper of wrappers) {
      const instance = wrapper.instance as object | undefined;
      // Skip wrappers without an instance yet (e.g. async factories not resolved) and aliases of one instance.
      if (!instance || typeof instance !== 'object' || seen.has(instance)) continue;
      seen.add(instance);
      const prototype = Object.getPrototypeOf(instance) as object;
      if (!prototype) continue;
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        this.exploreMethod(wrapper, instance, methodName);
      }
    }
    this.logger.log(
      `Mapped ${this.registry.listTools().length} tools, ${this.registry.listPrompts().length} prompts, ` +
        `${this.registry.listResources().length} resources, ${this.registry.listResourceTemplates().length} resource templates`,
    );
  }

  private exploreMethod(wrapper: InstanceWrapper, instance: object, methodName: string): void {
    const method = (instance as Record<string, (...args: unknown[]) => unknown>)[methodName];
    const where = `${instance.constructor.name}.${methodName}`;
    const tool = this.accessor.getToolOptions(method);
    const prompt = this.accessor.getPromptOptions(method);
    const resource = this.accessor.getResourceOptions(method);
    const template = this.accessor.getResourceTemplateOptions(method);
    const kinds = [tool, prompt, resource, template].filter(Boolean).length;
    if (kinds === 0) return;
    if (kinds > 1) {
      throw new McpDefinitionError(where, 'a method can be only one of tool, prompt, resource or resource template');
    }
    const wrap = () => this.handlers.create(wrapper, methodName);
    try {
      if (tool) this.registerTool(where, methodName, tool, wrap);
      if (prompt) this.registerPrompt(where, instance, methodName, prompt, wrap);
      if (resource) this.registerResource(where, methodName, resource, wrap);
      if (template) this.registerTemplate(where, instance, methodName, template, wrap);
    } catch (error) {
      if (error instanceof McpDefinitionError) throw error;
      throw new McpDefinitionError(where, (error as Error).message);
    }
  }

  private registerTool(where: string, methodName: string, options: McpToolOptions, wrap: () => ReturnType<McpHandlerFactory['create']>) {
    const name = options.name ?? methodName;
    if (!TOOL_NAME.test(name)) {
      throw new McpDefinitionError(where, `tool name "${name}" must be 1-128 characters of A-Z a-z 0-9 _ - .`);
    }
    const owner = `tool "${name}" (${where})`;
    const input = options.input === undefined ? undefined : compile(options.input, 'input', owner);
    const output = options.output === undefined ? undefined : compile(options.output, 'output', owner);
    this.registry.addTool({
      definition: clean({
        name,
        title: options.title,
        description: options.description,
        icons: options.icons,
        inputSchema: input?.jsonSchema ?? NO_ARGUMENTS_SCHEMA,
        outputSchema: output?.jsonSchema,
        annotations: options.annotations,
        _meta: options._meta,
      }),
      input,
      output,
      handler: wrap(),
    });
  }

  private registerPrompt(
    where: string,
    instance: object,
    methodName: string,
    options: McpPromptOptions,
    wrap: () => ReturnType<McpHandlerFactory['create']>,
  ) {
    const name = options.name ?? methodName;
    if (!name) throw new McpDefinitionError(where, 'prompt name must not be empty');
    const argumentNames = new Set<string>();
    const completions = new Map<string, BoundCompletion>();
    for (const argument of options.arguments ?? []) {
      if (!argument?.name) throw new McpDefinitionError(where, `prompt "${name}" has an argument without a name`);
      if (argumentNames.has(argument.name)) {
        throw new McpDefinitionError(where, `prompt "${name}" declares argument "${argument.name}" twice`);
      }
      argumentNames.add(argument.name);
      if (argument.complete) completions.set(argument.name, bindCompletion(where, instance, argument.complete));
    }
    this.registry.addPrompt({
      definition: clean({
        name,
        title: options.title,
        description: options.description,
        arguments: options.arguments?.map(({ complete: _complete, ...argument }) => clean(argument)),
        icons: options.icons,
        _meta: options._meta,
      }),
      requiredArguments: (options.arguments ?? []).filter((argument) => argument.required).map((argument) => argument.name),
      completions,
      handler: wrap(),
    });
  }

  private registerResource(
    where: string,
    methodName: string,
    options: McpResourceOptions,
    wrap: () => ReturnType<McpHandlerFactory['create']>,
  ) {
    if (typeof options.uri !== 'string' || !URI.test(options.uri)) {
      throw new McpDefinitionError(where, `resource uri "${String(options.uri)}" is not an absolute URI (RFC 3986)`);
    }
    if (options.size !== undefined && (!Number.isInteger(options.size) || options.size < 0)) {
      throw new McpDefinitionError(where, 'resource size must be a non-negative integer');
    }
    const { uri, name, title, description, mimeType, size, annotations, icons, _meta } = options;
    this.registry.addResource({
      definition: clean({ uri, name: name ?? methodName, title, description, mimeType, size, annotations, icons, _meta }),
      handler: wrap(),
    });
  }

  private registerTemplate(
    where: string,
    instance: object,
    methodName: string,
    options: McpResourceTemplateOptions,
    wrap: () => ReturnType<McpHandlerFactory['create']>,
  ) {
    const template = new UriTemplate(options.uriTemplate);
    const completions = new Map<string, BoundCompletion>();
    for (const [variable, provider] of Object.entries(options.complete ?? {})) {
      if (!template.variableNames.includes(variable)) {
        throw new McpDefinitionError(where, `completion for "${variable}", which is not a variable of ${options.uriTemplate}`);
      }
      completions.set(variable, bindCompletion(where, instance, provider));
    }
    const { uriTemplate, name, title, description, mimeType, annotations, icons, _meta } = options;
    this.registry.addResourceTemplate({
      definition: clean({ uriTemplate, name: name ?? methodName, title, description, mimeType, annotations, icons, _meta }),
      template,
      completions,
      handler: wrap(),
    });
  }
}

function compile(input: SchemaInput, role: 'input' | 'output', owner: string): CompiledSchema {
  return compileSchema(input, { role, owner });
}

function bindCompletion(where: string, instance: object, provider: McpCompletionProvider): BoundCompletion {
  const fn =
    typeof provider === 'string' ? (instance as Record<string, unknown>)[provider] : (provider as unknown);
  if (typeof fn !== 'function') {
    throw new McpDefinitionError(where, `completion provider "${String(provider)}" is not a method of ${instance.constructor.name}`);
  }
  const target = typeof provider === 'string' ? instance : undefined;
  return async (value, context) => fn.call(target, value, context);
}

/** Drops undefined fields so that definitions serialize exactly as declared. */
function clean<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
