/** `nest-mcp --help`. */
export const CLI_USAGE = `nest-mcp — a terminal client for MCP servers (protocol 2026-07-28)

Usage:
  nest-mcp tools  <target>
  nest-mcp call   <target> <tool>   [--arg key=value …] [--json '{…}'] [--answer key='{…}' …]
  nest-mcp read   <target> <uri>    [--answer key='{…}' …]
  nest-mcp prompt <target> <name>   [--arg key=value …] [--json '{…}'] [--answer key='{…}' …]

Target:
  http://host:port/mcp              a Streamable HTTP endpoint
  --stdio "<command>"               a command that serves MCP on stdin/stdout, e.g. --stdio "node dist/stdio.js"

Options:
  --arg key=value      an argument; typed by the tool's inputSchema (numbers, booleans, JSON for objects/arrays)
  --json '{…}'         all arguments as one JSON object (--arg wins on the same key)
  --answer key=…       the answer to the elicitation with that key: a JSON object (accept with that content),
                       or accept, decline, cancel
  --timeout ms         longest wait for the server; progress resets it (default 600000)
  --plain              machine output even on a terminal
  --verbose            show the stdio server's stderr
  -h, --help           this help

On a terminal, progress is a live bar and elicitations are asked as a form. Otherwise progress goes to stderr as
NDJSON ProgressEvents, the result goes to stdout as JSON, and answers come from --answer.
Exit codes: 0 ok, 1 error (one line on stderr; also a tool result with isError), 2 usage, 130 interrupted.
`;
