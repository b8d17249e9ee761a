import { McpForm } from 'nest-mcp';

// #region docs:decommission-form
/** What `decommission_service` asks the user: the service name typed again (a deliberate act), and why. */
export const DecommissionForm = McpForm.object({
  confirmName: McpForm.string({ title: 'Service name', description: 'Type the name of the service to confirm' }),
  reason: McpForm.string({ title: 'Reason', maxLength: 200 }).optional(),
});
// #endregion docs:decommission-form
