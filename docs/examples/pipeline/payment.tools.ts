import { type ArgumentsHost, Catch, type ExceptionFilter, Injectable, UseFilters } from '@nestjs/common';
import { McpContent, McpExecutionContext, McpTool } from 'nest-mcp';

// #region docs:payment-filter
class PaymentError extends Error {}

@Catch(PaymentError)
export class PaymentFilter implements ExceptionFilter {
  catch(error: PaymentError, host: ArgumentsHost) {
    const mcp = McpExecutionContext.create(host);
    return McpContent.error(`${mcp.getHandlerName()}: ${error.message}`);
  }
}
// #endregion docs:payment-filter

@Injectable()
export class PaymentTools {
  // #region docs:pay
  @McpTool()
  @UseFilters(PaymentFilter)
  pay() {
    throw new PaymentError('card declined'); // → isError result "pay: card declined"
  }
  // #endregion docs:pay
}
