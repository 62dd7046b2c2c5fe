"""aijail-mcp's JSON-RPC side: the error codes, the bounds of what a client
sends, and reading one message (a line up to MAX_LINE bytes, its nesting
measured before json.loads sees it).  Part of aijail.mcp, which re-exports
these names; standard library only.
"""

import itertools
import json
import os
import select

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_BUSY = -32000

# The bounds of what a client sends (docs/mcp.md, "Bounds and errors"): a line is read
# up to MAX_LINE bytes and no further, and its nesting is measured before
# json.loads sees it (the decoder recurses once a level).
MAX_LINE = 1 << 20
MAX_DEPTH = 64
MAX_ID_CHARS = 1024
_ID_RANGE = 1 << 63
# Above this an integer is no longer exact in a JSON number (I-JSON).
_MAX_NUMBER = 1 << 53
_MAX_DIGITS = 64
# Calls accepted beyond the running ones, each a thread waiting for a slot.
MAX_WAITING = 64
# --- the protocol ----------------------------------------------------------------------------

def _tool_result(text, structured):
    return {"content": [{"type": "text", "text": text}], "structuredContent": structured,
            "isError": False}


def _tool_error(text, structured=None):
    r = {"content": [{"type": "text", "text": text}], "isError": True}
    if structured is not None:
        r["structuredContent"] = structured
    return r


# --- reading a message -------------------------------------------------------------------------

def read_lines(fd):
    """The lines of fd, without their newline, each read up to MAX_LINE bytes.

    A longer line comes as None, its bytes dropped as they arrive: nothing
    a client sends makes the server hold more than MAX_LINE of it.  The end
    of input ends the lines (a read error counts as one).
    """
    buf = bytearray()
    over = False
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            # A descriptor left non-blocking by whoever started the server.
            select.select([fd], [], [])
            continue
        except OSError:
            chunk = b""
        if not chunk:
            break
        pos = 0
        while True:
            nl = chunk.find(b"\n", pos)
            piece = chunk[pos:] if nl < 0 else chunk[pos:nl]
            if not over:
                if len(buf) + len(piece) > MAX_LINE:
                    over = True
                    buf.clear()
                else:
                    buf += piece
            if nl < 0:
                break
            pos = nl + 1
            yield None if over else bytes(buf)
            buf.clear()
            over = False
    if over:
        yield None
    elif buf:
        yield bytes(buf)


_NOT_SYNTAX = bytes(b for b in range(256) if b not in b'"[]{}')
_SQUARE = bytes.maketrans(b"{}", b"[]")
_STEP = [0] * 256
_STEP[ord("[")] = 1
_STEP[ord("]")] = -1


def _too_deep(data):
    """Whether the arrays and objects of a JSON text nest past MAX_DEPTH,
    told without parsing it (json.loads recurses once a level).

    Escaped backslashes out, then escaped quotes: every quote left opens or
    closes a string.  Then only quotes and brackets kept, the strings cut
    out (brackets in them are text) and objects counted as arrays.  Each
    step is a pass in C; a text that is not JSON may count wrong, and is
    refused either way (json.loads stops at the first byte it cannot take).
    """
    s = data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_SYNTAX)
    s = b"".join(s.split(b'"')[::2]).translate(_SQUARE)
    # Every innermost array is [] now: one pass takes exactly one level off
    # (and most of the brackets of a wide text).
    s = s.replace(b"[]", b"")
    if b"[" * MAX_DEPTH in s:
        return True
    return max(itertools.accumulate(map(_STEP.__getitem__, s)), default=0) > MAX_DEPTH - 1


def _no_constant(name):
    raise ValueError("%s is not JSON" % name)


def _int(text):
    # An integer this long is no id, timeout or version: refused before
    # int() (quadratic in its digits before Python 3.11 bounded it).
    if len(text) > _MAX_DIGITS:
        raise ValueError("an integer of %d digits" % len(text))
    return int(text)


def parse(data):
    """(message, duplicates): data decoded as UTF-8 and parsed, bounded.

    duplicates lists (object, its keys named twice) for each object that
    named a key twice, innermost first (the message itself is last).
    Raises ValueError with a reason.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError("not UTF-8 (byte %d)" % e.start)
    if _too_deep(data):
        raise ValueError("nested deeper than %d" % MAX_DEPTH)
    dups = []

    def pairs(kv):
        d = dict(kv)
        if len(d) != len(kv):
            seen = set()
            dups.append((d, {k for k, _ in kv if k in seen or seen.add(k)}))
        return d
    msg = json.loads(text, object_pairs_hook=pairs, parse_constant=_no_constant,
                     parse_int=_int)
    return msg, dups


def valid_id(v):
    """A request id (and a progress token): a string or an integer, bounded."""
    if isinstance(v, str):
        return len(v) <= MAX_ID_CHARS
    return type(v) is int and -_ID_RANGE <= v < _ID_RANGE
