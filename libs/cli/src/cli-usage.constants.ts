/** `nest-mcp --help`. */
export const CLI_USAGE = `nest-mcp — a terminal client for MCP servers (protocol 2026-07-28)

Usage:
  nest-mcp tools  <target>
  nest-mcp call   <target> <tool>   [--arg key=value …] [--json '{…}'] [--answer key='{…}' …]
  nest-mcp read   <target> <uri>    [--answer key='{…}' …]
  nest-mcp prompt <target> <name>   [--arg key=value …] [--json '{…}'] [--answer key='{…}' …]
  nest-mcp events <target> [<name>] [--arg key=value …] [--json '{…}'] [--cursor c] [--follow [--poll]]

Target:
  http://host:port/mcp              a Streamable HTTP endpoint
  --stdio "<command>"               a command that serves MCP on stdin/stdout, e.g. --stdio "node dist/stdio.js";
                                    it gets a minimal environment (PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG,
                                    LC_ALL, LC_CTYPE, TZ, TMPDIR), not your secrets and not NODE_OPTIONS

Options:
  --arg key=value      an argument; typed by the tool's inputSchema (numbers, booleans, JSON for objects/arrays)
  --json '{…}'         all arguments as one JSON object (--arg wins on the same key)
  --answer key=…       the answer to the elicitation with that key: a JSON object (accept with that content),
                       or accept, decline, cancel
  --follow             events: keep following the type until Ctrl+C — a push stream (events/stream) when the
                       type offers one, else polling (events/poll at the server's nextPollMs)
  --poll               events --follow: poll even when the type offers a push stream
  --cursor c           events: start after this cursor (from an earlier run's output), not now
  --timeout ms         longest wait for the server; progress resets it (default 600000)
  --plain              machine output even on a terminal
  --verbose            show the stdio server's stderr
  --env NAME=value     set a variable for the stdio server; --env NAME passes your own value on (repeatable)
  --inherit-env        give the stdio server your whole environment (secrets included)
  -h, --help           this help

events without a name lists the server's event types; with one it polls once (from --cursor, else from now) and
prints the result, or with --follow one line per event: NDJSON {eventId, name, timestamp, data, cursor} when piped
(and {"type":"truncated"|"terminated",…} lines when events may have been missed or the server ended the stream).
On a terminal, progress is a live bar and elicitations are asked as a form. Otherwise progress goes to stderr as
NDJSON ProgressEvents, the result goes to stdout as JSON, and answers come from --answer.
The server's text never reaches the terminal raw: control characters (escape sequences, \\r, C1, bidi overrides)
are shown escaped, e.g. \\x1b]52;…, and a link shows the host it opens; a link that is not http(s) is declined.
Exit codes: 0 ok, 1 error (one line on stderr; also a tool result with isError), 2 usage, 130 interrupted.
`;
