// A command a tool wraps (docs/stdio.md, "Writing the events from Node.js"): run as
// `node reindex.command.js <file>...`, it reports one ProgressEvent line per file on stderr and prints its report
// on stdout. test/server/progress-entry.e2e-spec.ts runs it and lists the modules it loads.
// #region docs:reindex-command
import { createProgressEvent, ProgressEventWriter } from 'nest-mcp/progress';

const files = process.argv.slice(2);
const progress = new ProgressEventWriter(); // process.stderr: one write per whole line
for (const [index, file] of files.entries()) {
  // … the real work on `file` …
  const report = { progress: index + 1, total: files.length, message: `Indexed ${file}` };
  // TRACEPARENT, when the tool passes the request's traceparent on: the events then carry its trace ids.
  progress.write(createProgressEvent(report, { traceparent: process.env.TRACEPARENT }));
}
console.log(JSON.stringify({ indexed: files.length }));
// #endregion docs:reindex-command
