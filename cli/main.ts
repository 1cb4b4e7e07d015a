#!/usr/bin/env node
/**
 * The entry point of the `pooltest` command. Loading the command's modules takes a few hundred
 * milliseconds, and until its signal handlers exist a Ctrl-C would kill the process outright
 * (Node's default). So this file loads almost nothing: it installs handlers that note an early
 * signal (early-signals.ts), then loads the command (command.ts), which acts on that signal as
 * soon as it can, like on any other.
 */
import './early-signals.js';
// A closed stdout or stderr (`| head`) ends no run (closed-pipes.ts).
import './closed-pipes.js';

await import('./command.js');
