/** The user's answer to a form: accepted with content, declined, or cancelled. */
export type FormAnswer<T> = { action: 'accept'; content: T } | { action: 'decline' } | { action: 'cancel' };

/** The user's answer to a URL request: `accept` means they agreed to open it, not that the flow finished. */
export type UrlAnswer = { action: 'accept' | 'decline' | 'cancel' };

/** A sampled message (`CreateMessageResult`). */
export interface SamplingAnswer {
  role: 'user' | 'assistant';
  content: unknown;
  model: string;
  stopReason?: string;
  [key: string]: unknown;
}

/** The client's roots (`ListRootsResult`). */
export interface RootsAnswer {
  roots: { uri: string; name?: string; _meta?: Record<string, unknown> }[];
}

/** Parameters of a sampling request (`CreateMessageRequestParams`). */
export interface SamplingRequestParams {
  messages: { role: 'user' | 'assistant'; content: unknown }[];
  maxTokens: number;
  systemPrompt?: string;
  modelPreferences?: Record<string, unknown>;
  temperature?: number;
  stopSequences?: string[];
  includeContext?: 'none' | 'thisServer' | 'allServers';
  metadata?: Record<string, unknown>;
  tools?: unknown[];
  toolChoice?: { mode?: 'auto' | 'required' | 'none' };
}
