/**
 * The manager's default logger: pino, named after the operator, at `$LOG_LEVEL` (default `info`);
 * JSON lines for machines (a pipe, a file, a container's log), one readable line per record when
 * stdout is a terminal (and coloured unless `$NO_COLOR` is set).
 */
import pino, { type DestinationStream, type Logger } from "pino";
import { prettyStream } from "./internal/pretty.ts";

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Minimum level. Default `$LOG_LEVEL`, else `info`. */
  level?: string;
  /** Readable lines instead of JSON. Default: whether stdout is a terminal. */
  pretty?: boolean;
  /** Where to write. Default stdout. */
  output?: DestinationStream;
  /** Environment read for `LOG_LEVEL` and `NO_COLOR`. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** Creates the logger of the operator `name` (pino's `name`, on every record). */
export function createLogger(name: string, options: LoggerOptions = {}): Logger {
  const env = options.env ?? process.env;
  const settings = { name, level: options.level ?? env.LOG_LEVEL ?? "info" };
  if (!(options.pretty ?? process.stdout.isTTY === true)) return pino(settings, options.output);
  return pino(settings, prettyStream(options.output ?? process.stdout, !env.NO_COLOR));
}
