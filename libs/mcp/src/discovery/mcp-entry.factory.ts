import { MCP_APP_MIME_TYPE } from '../apps/apps.constants.js';
import { isAppViewUri, toolAppBinding, type McpToolAppBinding } from '../apps/app-tool.binding.js';
import { appViewResult, appViewSettings } from '../apps/app-view.meta.js';
import type { McpHandler } from '../context/mcp-handler.interface.js';
import type { McpCompanionPromptOptions } from '../decorators/mcp-app-options.interface.js';
import type { McpAppViewMetadata } from '../decorators/mcp-app-view.decorator.js';
import type { McpCompletionProvider } from '../decorators/completion-provider.interface.js';
import type { McpPromptOptions } from '../decorators/mcp-prompt.decorator.js';
import type { McpResourceTemplateOptions } from '../decorators/mcp-resource-template.decorator.js';
import type { McpResourceOptions } from '../decorators/mcp-resource.decorator.js';
import type { McpBeforeTaskHook, McpToolOptions } from '../decorators/mcp-tool.decorator.js';
import type { McpHandlerSummary } from '../protocol/mcp-caller.interface.js';
import { UriTemplate } from '../protocol/uri-template.js';
import { compileSchema, type SchemaInput } from '../schema/index.js';
import { McpDefinitionError } from './mcp-definition.error.js';
import { checkParamHeaders } from './param-headers.js';
import type {
  BoundCompletion,
  PromptEntry,
  ResourceEntry,
  ResourceTemplateEntry,
  ToolEntry,
  ToolTaskPolicy,
} from './registry-entries.interface.js';
import { ABSOLUTE_URI } from '../protocol/uri.util.js';
import { checkScopes } from './scopes.util.js';

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const NO_ARGUMENTS_SCHEMA = { type: 'object', additionalProperties: false };

/**
 * Checks a declaration and builds its registry entry; shared by the explorer (decorated methods) and runtime
 * registration. `where` names the declaration in errors; `host` resolves completion providers given by method name.
 */
export const McpEntryFactory = {
  tool(
    where: string,
    options: McpToolOptions & { name: string },
    handler: McpHandler,
    host?: object,
    scopes: readonly string[] = [],
  ): ToolEntry {
    const { name } = options;
    const task = toolTaskPolicy(where, options, host);
    if (!TOOL_NAME.test(name)) {
      throw new McpDefinitionError(where, `tool name "${name}" must be 1-128 characters of A-Z a-z 0-9 _ - .`);
    }
    const owner = `tool "${name}" (${where})`;
    const compile = (schema: SchemaInput, role: 'input' | 'output') => {
      try {
        return compileSchema(schema, { role, owner });
      } catch (error) {
        throw new McpDefinitionError(where, (error as Error).message);
      }
    };
    const input = options.input === undefined ? undefined : compile(options.input, 'input');
    const output = options.output === undefined ? undefined : compile(options.output, 'output');
    const inputSchema = input?.jsonSchema ?? NO_ARGUMENTS_SCHEMA;
    const app = appBinding(where, options);
    const summary: McpHandlerSummary = Object.freeze({ kind: 'tool', name, scopes: checkScopes(where, scopes) });
    const companion =
      options.companionPrompt === undefined
        ? undefined
        : companionPrompt(where, name, options.companionPrompt, app, summary);
    return {
      definition: clean({
        name,
        title: options.title,
        description: options.description,
        icons: options.icons,
        inputSchema,
        outputSchema: output?.jsonSchema,
        annotations: options.annotations,
        _meta: app?.meta ?? options._meta,
      }),
      input,
      output,
      paramHeaders: checkParamHeaders(where, inputSchema),
      handler,
      summary,
      ...(task && { task }),
      ...(app && { app }),
      ...(companion && { companion }),
    };
  },

  /**
   * An MCP Apps view (`@McpAppView`): a static resource at a `ui://` URI with the MCP Apps MIME type and `_meta.ui`,
   * whose handler's HTML is served as exactly one content item carrying the same `_meta.ui` and the view's `ttlMs`.
   */
  appView(
    where: string,
    options: McpAppViewMetadata & { name: string },
    handler: McpHandler,
    scopes: readonly string[] = [],
  ): ResourceEntry {
    const { uri, name, title, description, icons, _meta } = options;
    if (!isAppViewUri(uri)) {
      throw new McpDefinitionError(
        where,
        `view uri ${JSON.stringify(uri)} must be a ui:// URI of printable ASCII (MCP Apps views live at ui:// URIs)`,
      );
    }
    let settings: ReturnType<typeof appViewSettings>;
    try {
      settings = appViewSettings(options);
    } catch (error) {
      throw new McpDefinitionError(where, `view ${uri}: ${(error as Error).message}`);
    }
    const meta = settings.ui || _meta ? { ..._meta, ...(settings.ui && { ui: settings.ui }) } : undefined;
    const view: McpHandler = {
      invoke: async (input, context) => appViewResult(uri, await handler.invoke(input, context), settings),
      ...(handler.authorize && { authorize: (input, context) => handler.authorize!(input, context) }),
    };
    return {
      definition: clean({ uri, name, title, description, mimeType: MCP_APP_MIME_TYPE, icons, _meta: meta }),
      handler: view,
      summary: Object.freeze({ kind: 'resource', name, uri, scopes: checkScopes(where, scopes) }),
    };
  },

  prompt(
    where: string,
    options: McpPromptOptions & { name: string },
    handler: McpHandler,
    host?: object,
    scopes: readonly string[] = [],
  ): PromptEntry {
    const { name } = options;
    if (!name) throw new McpDefinitionError(where, 'prompt name must not be empty');
    const argumentNames = new Set<string>();
    const completions = new Map<string, BoundCompletion>();
    for (const argument of options.arguments ?? []) {
      if (!argument?.name) throw new McpDefinitionError(where, `prompt "${name}" has an argument without a name`);
      if (argumentNames.has(argument.name)) {
        throw new McpDefinitionError(where, `prompt "${name}" declares argument "${argument.name}" twice`);
      }
      argumentNames.add(argument.name);
      if (argument.complete) completions.set(argument.name, bindCompletion(where, argument.complete, host));
    }
    return {
      definition: clean({
        name,
        title: options.title,
        description: options.description,
        arguments: options.arguments?.map(({ complete: _complete, ...argument }) => clean(argument)),
        icons: options.icons,
        _meta: options._meta,
      }),
      requiredArguments: (options.arguments ?? [])
        .filter((argument) => argument.required)
        .map((argument) => argument.name),
      completions,
      handler,
      summary: Object.freeze({ kind: 'prompt', name, scopes: checkScopes(where, scopes) }),
    };
  },

  resource(
    where: string,
    options: McpResourceOptions & { name: string },
    handler: McpHandler,
    scopes: readonly string[] = [],
  ): ResourceEntry {
    if (typeof options.uri !== 'string' || !ABSOLUTE_URI.test(options.uri)) {
      throw new McpDefinitionError(where, `resource uri "${String(options.uri)}" is not an absolute URI (RFC 3986)`);
    }
    if (options.size !== undefined && (!Number.isInteger(options.size) || options.size < 0)) {
      throw new McpDefinitionError(where, 'resource size must be a non-negative integer');
    }
    const { uri, name, title, description, mimeType, size, annotations, icons, _meta } = options;
    // ui:// is reserved for MCP Apps views (ext-apps, "Reservations in MCP"); a view must carry their MIME type.
    if (isAppViewUri(uri) && mimeType !== MCP_APP_MIME_TYPE) {
      throw new McpDefinitionError(
        where,
        `ui:// URIs are reserved for MCP Apps views: serve ${uri} with @McpAppView (mimeType ${MCP_APP_MIME_TYPE})`,
      );
    }
    return {
      definition: clean({ uri, name, title, description, mimeType, size, annotations, icons, _meta }),
      handler,
      summary: Object.freeze({ kind: 'resource', name, uri, scopes: checkScopes(where, scopes) }),
    };
  },

  resourceTemplate(
    where: string,
    options: McpResourceTemplateOptions & { name: string },
    handler: McpHandler,
    host?: object,
    scopes: readonly string[] = [],
  ): ResourceTemplateEntry {
    let template: UriTemplate;
    try {
      template = new UriTemplate(options.uriTemplate);
    } catch (error) {
      throw new McpDefinitionError(where, (error as Error).message);
    }
    const completions = new Map<string, BoundCompletion>();
    for (const [variable, provider] of Object.entries(options.complete ?? {})) {
      if (!template.variableNames.includes(variable)) {
        throw new McpDefinitionError(
          where,
          `completion for "${variable}", which is not a variable of ${options.uriTemplate}`,
        );
      }
      completions.set(variable, bindCompletion(where, provider, host));
    }
    const { uriTemplate, name, title, description, mimeType, annotations, icons, _meta } = options;
    return {
      definition: clean({ uriTemplate, name, title, description, mimeType, annotations, icons, _meta }),
      template,
      completions,
      handler,
      summary: Object.freeze({ kind: 'resourceTemplate', name, uri: uriTemplate, scopes: checkScopes(where, scopes) }),
    };
  },
};

function bindCompletion(where: string, provider: McpCompletionProvider, host?: object): BoundCompletion {
  const fn = typeof provider === 'string' ? (host as Record<string, unknown> | undefined)?.[provider] : provider;
  if (typeof fn !== 'function') {
    throw new McpDefinitionError(
      where,
      `completion provider "${String(provider)}" is not a method of ${host?.constructor.name ?? 'the handler'}`,
    );
  }
  return async (value, context) => fn.call(typeof provider === 'string' ? host : undefined, value, context);
}

/** Drops undefined fields so that definitions serialize exactly as declared. */
function clean<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The MCP Apps binding of a tool, checked (`toolAppBinding`), or `undefined` for a tool without a view. */
function appBinding(where: string, options: McpToolOptions & { name: string }): McpToolAppBinding | undefined {
  try {
    return toolAppBinding(options.app, options._meta);
  } catch (error) {
    throw new McpDefinitionError(where, `tool "${options.name}": ${(error as Error).message}`);
  }
}

/**
 * The prompt entry of a tool's companion prompt: rendered from the tool's name, never running the tool, and seen by
 * exactly who sees the tool (it shares the tool's summary, so scopes and the `visibility` hook judge the tool).
 */
function companionPrompt(
  where: string,
  toolName: string,
  options: McpCompanionPromptOptions,
  app: McpToolAppBinding | undefined,
  summary: McpHandlerSummary,
): PromptEntry {
  if (app?.appOnly) {
    throw new McpDefinitionError(
      where,
      `tool "${toolName}" is app-only (visibility: ['app']): it cannot have a companion prompt, which is for the model`,
    );
  }
  if (typeof options !== 'object' || options === null)
    throw new McpDefinitionError(where, 'companionPrompt must be an object { name, render }');
  const { name, title, description, icons, _meta, render } = options;
  if (typeof name !== 'string' || name === '')
    throw new McpDefinitionError(where, `the companion prompt of tool "${toolName}" needs a name`);
  if (typeof render !== 'function') {
    throw new McpDefinitionError(
      where,
      `the companion prompt "${name}" of tool "${toolName}" needs a render function (toolName) => messages`,
    );
  }
  return {
    definition: clean({ name, title, description, icons, _meta }),
    requiredArguments: [],
    completions: new Map(),
    handler: { invoke: async () => render(toolName) },
    summary,
    companionOf: toolName,
  };
}

/** The task policy of a tool, checked: `task` is one of the spec's terms, `beforeTask` only with it. */
function toolTaskPolicy(where: string, options: McpToolOptions, host: object | undefined): ToolTaskPolicy | undefined {
  const { task, beforeTask } = options;
  if (task === undefined) {
    if (beforeTask !== undefined) throw new McpDefinitionError(where, 'beforeTask needs the option task');
    return undefined;
  }
  if (task !== 'optional' && task !== 'required') {
    throw new McpDefinitionError(where, `task must be 'optional' or 'required', got ${JSON.stringify(task)}`);
  }
  if (beforeTask === undefined) return { support: task };
  if (typeof beforeTask === 'function') return { support: task, beforeTask };
  const method =
    typeof beforeTask === 'string' ? (host as Record<string, unknown> | undefined)?.[beforeTask] : undefined;
  if (typeof method !== 'function') {
    throw new McpDefinitionError(where, `beforeTask must be a function or the name of a method of the same provider`);
  }
  return { support: task, beforeTask: (method as McpBeforeTaskHook).bind(host) };
}
