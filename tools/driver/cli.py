"""What every command-line tool shares: one-line errors, exit code 1, no traceback."""

from __future__ import annotations

import argparse
import atexit
import gc
import os
import sys
from collections.abc import Callable

from xdsl.utils.exceptions import DiagnosticException

from compiler.ir.diagnostics import CompileError, OpError, SourceMap, one_line


class ToolArgumentParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit code 1 (not 2)."""

    def error(self, message: str):
        self.exit(1, f"{self.prog}: error: {message}\n")


def fail(tool: str, lines: list[str], filename: str | None = None) -> int:
    """The one place diagnostics are printed: each one line, none twice.  A message that names
    no file is about `filename` (the tool's input) if known, else the tool's own."""
    who = filename or tool
    for line in dict.fromkeys(one_line(m) for m in lines):
        print(line if ": error:" in line else f"{who}: error: {line}", file=sys.stderr)
    return 1


def _no_collection_at_exit() -> None:
    """At interpreter exit, move every object to the permanent generation, which no collection
    scans: the interpreter's final collections would otherwise traverse the whole heap
    (TensorFlow's ~3*10^5 objects and the compiled module), ~1.5 s CPU at the end of a cann-compile
    of a GraphDef, to free memory the OS frees anyway.  Python does not promise to finalize objects
    still alive at exit either; files are closed where they are written."""
    gc.freeze()


def run_tool(tool: str, body: Callable[[], int | None], source: Callable[[], SourceMap | None] = lambda: None) -> int:
    """Run a tool's body; turn every expected failure into one line per problem."""
    atexit.unregister(_no_collection_at_exit)  # once, however many tools run in this process
    atexit.register(_no_collection_at_exit)
    # Only this process's parsers: the xDSL driver builds a plain ArgumentParser.
    def error(parser: argparse.ArgumentParser, message: str):
        parser.exit(1, f"{tool}: error: {message}\n")

    argparse.ArgumentParser.error = error  # type: ignore[method-assign, assignment]
    try:
        return body() or 0
    except CompileError as e:
        src = source()
        return fail(tool, e.messages, src.filename if src is not None else None)
    except OpError as e:
        src = source() or SourceMap("<input>")
        return fail(tool, [src.describe(op, msg) for op, msg in e.items])
    except DiagnosticException as e:
        return fail(tool, [str(e).splitlines()[0] if str(e) else type(e).__name__])
    except KeyboardInterrupt:
        return fail(tool, ["interrupted"])
    except SystemExit as e:  # argparse: --help (0) or a usage error (1, already printed)
        return e.code if isinstance(e.code, int) else 1
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as e:  # a compiler bug: still one line, the traceback on request
        if os.environ.get("CANN_DEBUG"):
            raise
        where = ""
        tb = e.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        if tb is not None:
            where = f" (at {os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno})"
        return fail(tool, [f"internal error: {type(e).__name__}: {e}{where}; "
                           "set CANN_DEBUG=1 for the traceback and please report it"])
