import { randomBytes } from 'node:crypto';
import { parseCliArguments, type CliInvocation } from './cli-arguments.parser.js';
import { CliError, CliExitCode } from './cli.error.js';
import { runCommand } from './cli.commands.js';
import { CLI_DEFAULT_TIMEOUT_MS, CLI_VERSION } from './cli.constants.js';
import { CLI_USAGE } from './cli-usage.constants.js';
import type { ElicitationAnswer, ElicitationParams, ElicitationResponder } from './elicitation-responder.interface.js';
import { connectTarget, type ConnectedTarget } from './mcp-target.connector.js';
import { NdjsonProgressReporter } from './ndjson-progress.reporter.js';
import { ProgressBarRenderer } from './progress-bar.renderer.js';
import type { ProgressReporter } from './progress-reporter.interface.js';
import { ProgressRelay } from './progress.relay.js';
import { printResult } from './result.printer.js';
import { ScriptedResponder } from './scripted.responder.js';
import { buildServerEnvironment } from './server-environment.util.js';
import { TerminalFormResponder } from './terminal-form.responder.js';
import { TerminalTextDecoder } from './terminal-text.decoder.js';
import { sanitizeTerminalText } from './terminal-text.sanitizer.js';

/** The process the CLI talks to: its three streams and an abort signal for Ctrl+C. */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Aborts the request in flight (the client sends `notifications/cancelled` or closes the stream). */
  interrupt?: AbortSignal;
}

/**
 * Runs `nest-mcp` and resolves with its exit code. On a terminal (stderr is a TTY, no `--plain`) progress is a live
 * bar and, when stdin is a TTY too, elicitations are asked as forms; otherwise progress is NDJSON `ProgressEvent`s
 * on stderr, answers come from `--answer`, and the result is one JSON line on stdout. Every failure ends with one
 * line on stderr: `nest-mcp: <reason>`. Whatever the server controls reaches neither stream raw: on a terminal its
 * control characters are shown escaped, in JSON they are JSON-escaped. A stdio server gets a minimal environment
 * unless `--env` / `--inherit-env` say otherwise.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let invocation: CliInvocation;
  try {
    const request = parseCliArguments(argv);
    if (request.kind === 'help') {
      io.stdout.write(CLI_USAGE);
      return CliExitCode.Ok;
    }
    if (request.kind === 'version') {
      io.stdout.write(`${CLI_VERSION}\n`);
      return CliExitCode.Ok;
    }
    invocation = request.invocation;
  } catch (error) {
    return fail(io, error);
  }

  const interactive = !invocation.plain && Boolean(io.stderr.isTTY);
  const traceparent = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
  let reporter: ProgressReporter;
  try {
    reporter = interactive
      ? new ProgressBarRenderer(io.stderr, invocation.name ?? invocation.command)
      : await NdjsonProgressReporter.open(io.stderr, traceparent);
  } catch (error) {
    return fail(io, error);
  }
  const responder = new RecordingResponder(
    interactive && io.stdin.isTTY
      ? new TerminalFormResponder(io.stdin, io.stderr, () => reporter.suspend())
      : new ScriptedResponder(invocation.answers),
  );
  const abort = new AbortController();
  const onInterrupt = () => abort.abort(new CliError('interrupted', CliExitCode.Interrupted));
  io.interrupt?.addEventListener('abort', onInterrupt, { once: true });

  const serverStderr = new TerminalTextDecoder();
  let target: ConnectedTarget | undefined;
  try {
    target = await connectTarget(invocation.target, {
      responder,
      serverStderr: invocation.verbose
        ? { write: (chunk) => (reporter.suspend(), io.stderr.write(serverStderr.write(chunk))) }
        : undefined,
      onProgress: new ProgressRelay(reporter).onprogress,
      serverEnvironment: buildServerEnvironment(process.env, {
        inherit: invocation.inheritEnv,
        entries: invocation.env,
      }),
    });
    const outcome = await runCommand(invocation, {
      client: target.client,
      tasks: {
        channel: target.tasks,
        responder,
        onStatus: (task) => reporter.reportStatus(task.taskId, task.status, task.statusMessage),
      },
      // Asks for progress (the client adds a token); the values are read off the transport by `onProgress`.
      onprogress: () => undefined,
      signal: abort.signal,
      timeoutMs: invocation.timeoutMs ?? CLI_DEFAULT_TIMEOUT_MS,
      traceparent,
      events: { out: io.stdout, err: io.stderr, forPeople: !invocation.plain && Boolean(io.stdout.isTTY) },
    });
    reporter.finish();
    if (outcome.result)
      printResult(invocation.command, outcome.result, io.stdout, !invocation.plain && Boolean(io.stdout.isTTY));
    if (outcome.failure) return fail(io, new CliError(outcome.failure));
    return CliExitCode.Ok;
  } catch (error) {
    reporter.finish();
    // The client wraps what an elicitation handler throws; the responder's own reason is the useful one.
    // A task cancelled on Ctrl+C says which task it cancelled.
    const interrupted = error instanceof CliError && error.exitCode === CliExitCode.Interrupted;
    return fail(io, abort.signal.aborted && !interrupted ? abort.signal.reason : (responder.failure ?? error));
  } finally {
    io.interrupt?.removeEventListener('abort', onInterrupt);
    await target?.close().catch(() => undefined);
  }
}

/** Keeps the first failure of the responder it wraps. */
class RecordingResponder implements ElicitationResponder {
  failure?: unknown;

  constructor(private readonly inner: ElicitationResponder) {}

  async answer(key: string, params: ElicitationParams): Promise<ElicitationAnswer> {
    try {
      return await this.inner.answer(key, params);
    } catch (error) {
      this.failure ??= error;
      throw error;
    }
  }
}

/** Writes the one line that says why (often the server's words: escaped), and gives the exit code. */
function fail(io: CliIo, error: unknown): number {
  const message =
    sanitizeTerminalText((error instanceof Error ? error.message : String(error)).split('\n', 1)[0], {
      multiline: false,
    }) || 'unknown error';
  const usage = error instanceof CliError && error.exitCode === CliExitCode.Usage;
  io.stderr.write(`nest-mcp: ${message}${usage ? ' (see nest-mcp --help)' : ''}\n`);
  return error instanceof CliError ? error.exitCode : CliExitCode.Failed;
}
