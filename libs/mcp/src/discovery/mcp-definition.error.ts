/** A decorator was misused; thrown at bootstrap so that a broken server never starts. */
export class McpDefinitionError extends Error {
  constructor(where: string, problem: string) {
    super(`nest-mcp: ${where}: ${problem}`);
    this.name = 'McpDefinitionError';
  }
}
