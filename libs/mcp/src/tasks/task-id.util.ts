import { randomBytes } from 'node:crypto';

/**
 * A new task id: 144 bits from the CSPRNG, base64url (24 characters of `A-Z a-z 0-9 - _`), so that ids cannot be
 * guessed (ext-tasks spec 2026-07-28: tasks, "Security Considerations") and travel in `Mcp-Name` as they are.
 */
export function newTaskId(): string {
  return randomBytes(18).toString('base64url');
}
