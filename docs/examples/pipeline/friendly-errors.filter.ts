import { Catch, type ExceptionFilter } from '@nestjs/common';
import { isInputRequired, McpToolError } from 'nest-mcp';

// #region docs:friendly-errors
@Catch()
export class FriendlyErrors implements ExceptionFilter {
  catch(error: unknown) {
    if (isInputRequired(error)) throw error;
    throw new McpToolError(`friendly: ${(error as Error).message}`);
  }
}
// #endregion docs:friendly-errors
