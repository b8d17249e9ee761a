/** A misdeclared event type (`@McpEvent`, `McpEventTypes.register`): fails bootstrap, naming the declaration. */
export class McpEventDefinitionError extends Error {
  constructor(where: string, problem: string) {
    super(`Invalid event type ${where}: ${problem}`);
    this.name = 'McpEventDefinitionError';
  }
}
