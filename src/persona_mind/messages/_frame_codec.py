"""The sidecar protocol's codec: frames to lines and back, never trusting a line.

``decode_frame`` answers a :class:`BadFrame` (with the code and, where it can be read, the
type and id of the frame) instead of raising, so the reader answers bad input with an
``error`` frame; ``LineSplitter`` bounds what a reader buffers (see
``persona_mind.messages.bridge``).
"""

from __future__ import annotations

import itertools
import re

import msgspec

from persona_mind.messages._frames import (
    MAX_FRAME_BYTES,
    MAX_ID,
    MAX_NESTING,
    AnyFrame,
    ErrorFrame,
    Frame,
)

__all__ = (
    "BadFrame",
    "LineSplitter",
    "decode_frame",
    "encode_frame",
    "nesting_exceeds",
    "raw",
    "response_line",
)

_ENCODER = msgspec.json.Encoder()
_FRAME_DECODER: msgspec.json.Decoder[AnyFrame] = msgspec.json.Decoder(AnyFrame)
_KNOWN_TYPES = frozenset({"hello", "ready", "request", "response", "notify", "error"})


def encode_frame(frame: Frame) -> bytes:
    """One frame as a line: compact JSON plus LF (JSON never contains a raw LF)."""
    return _ENCODER.encode(frame) + b"\n"


def response_line(ident: int, result: object) -> bytes:
    """``encode_frame(Response(id=ident, result=raw(result)))``, the same bytes, encoding
    ``result`` once: every answered request is one (issue 24, item 6)."""
    return b'{"type":"response","id":%d,"result":%b,"error":null}\n' % (
        ident,
        _ENCODER.encode(result),
    )


def raw(value: object) -> msgspec.Raw:
    """``value`` pre-encoded, for ``Request.params`` / ``Response.result``."""
    return msgspec.Raw(_ENCODER.encode(value))


class BadFrame(msgspec.Struct, frozen=True, kw_only=True):
    """A line that is not a valid frame; ``reply`` is the error frame to send back.

    ``answers`` is the id when the bad line was a *response* (to one of our requests), so the
    receiver can fail that request at once instead of waiting for its timeout.
    """

    reply: ErrorFrame
    answers: int | None = None


def decode_frame(line: bytes) -> AnyFrame | BadFrame:
    """Decode one line; a bad line becomes a :class:`BadFrame`, never a raise.

    Its ``reply.id`` carries the offending frame's ``id`` when it was a request with a
    readable integer id, so the peer can fail that request instead of waiting for it.
    Lines that are not UTF-8 or nest deeper than :data:`MAX_NESTING` are refused before
    any JSON decoding (the decoders recurse, and a refused frame is never echoed).
    """
    refusal: tuple[str, str] | None = None
    if not line.isascii():
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as err:
            refusal = ("malformed", f"frame is not valid UTF-8 (byte {err.start}); send UTF-8 JSON")
    if refusal is None and nesting_exceeds(line, MAX_NESTING):
        refusal = (
            "too_deep",
            f"frame nests arrays/objects deeper than {MAX_NESTING} levels; send flatter data",
        )
    if refusal is not None:
        kind, ident = _head(line)
        return _bad(refusal[0], refusal[1], kind, ident)
    try:
        return _FRAME_DECODER.decode(line)
    except msgspec.DecodeError as err:
        return _classify(line, str(err))


def _bad(code: str, message: str, kind: object, ident: object) -> BadFrame:
    """The error frame for a bad line; the id goes where the peer or we can use it.

    The id of anything but a response (a request, or a frame whose ``type`` is unknown: a
    request with a misspelt type, say) is echoed so the peer can fail what it waits for;
    a response's id names one of *our* requests. An id outside :data:`MAX_ID` is never
    echoed: the peer would read it rounded, as another request's.
    """
    readable = ident if type(ident) is int and abs(ident) <= MAX_ID else None  # not a bool
    return BadFrame(
        reply=ErrorFrame(code=code, message=message, id=readable if kind != "response" else None),
        answers=readable if kind == "response" else None,
    )


def _classify(line: bytes, detail: str) -> BadFrame:
    try:
        loose = msgspec.json.decode(line)
    except msgspec.DecodeError:
        kind, ident = _head(line)
        return _bad("malformed", f"frame is not valid JSON ({detail})", kind, ident)
    if not isinstance(loose, dict):
        return _bad("malformed", "a frame must be a JSON object with a 'type'", None, None)
    kind, ident = loose.get("type"), loose.get("id")
    if type(ident) is int and abs(ident) > MAX_ID:
        message = (
            f"a {kind!r} frame's id is outside ±(2^53 - 1), the integers a JavaScript number "
            "holds exactly; it was refused and is not echoed — use smaller ids"
        )
        return _bad("malformed", message, kind, ident)
    if kind not in _KNOWN_TYPES:
        message = f"unknown frame type {kind!r}; expected one of {sorted(_KNOWN_TYPES)}"
        return _bad("unknown_type", message, kind, ident)
    return _bad("malformed", f"bad {kind!r} frame: {detail}", kind, ident)


# Brackets become parens, everything else is dropped; parens map to +1/-1 (signed bytes).
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_TO_PARENS = bytes.maketrans(b"[]{}", b"()()")
_TO_STEPS = bytes.maketrans(b"()", b"\x01\xff")
# The top-level fields before the first nested value: where a frame's type and id are read
# from when it cannot be decoded (the extension writes type and id first).
_HEAD = re.compile(rb"^\s*\{([^\[\]{}]*)")
_HEAD_TYPE = re.compile(rb'"type"\s*:\s*"(\w{1,20})"')
_HEAD_ID = re.compile(rb'"id"\s*:\s*(\d{1,15})\s*[,}]')


def nesting_exceeds(line: bytes, limit: int) -> bool:
    """True if ``line`` (JSON) nests arrays/objects more than ``limit`` levels deep.

    Linear, without recursion or per-character Python code: a line with at most ``limit``
    opening brackets cannot be deeper (every ordinary frame stops there); otherwise escapes
    are dropped, the quoted parts (strings, whose brackets are data) skipped, and the bracket
    shape is peeled a few times (each pass removes one level and turns chains into runs of
    openers, found by a substring search) before the running depth's maximum is taken over
    what is left. A line that is not JSON gets an approximate answer; the decoder rejects it
    at the first bad byte, before it could recurse past that point.
    """
    if _openers_at_most(line, limit):
        return False
    if b"\\" in line:
        line = line.replace(b"\\\\", b"").replace(b'\\"', b"")
    shape = b"".join(line.split(b'"')[0::2]).translate(_TO_PARENS, _NOT_BRACKETS)
    for _ in range(4):  # peel the innermost pairs: cheap, and it turns chains into runs
        if b"(" * (limit + 1) in shape:
            return True
        if shape.count(b"(") <= limit:
            return False
        peeled = shape.replace(b"()", b"")
        if len(peeled) == len(shape):
            break
        shape, limit = peeled, limit - 1
    return max(itertools.accumulate(memoryview(shape.translate(_TO_STEPS)).cast("b"))) > limit


#: Openers looked for one by one (``find`` is a vectorised scan) before counting them all
#: (``count`` reads byte by byte): an ordinary frame has a handful (issue 24, item 6).
_FEW_OPENERS = 16


def _openers_at_most(line: bytes, limit: int) -> bool:
    """Whether ``line`` holds at most ``limit`` ``[`` and ``{`` together."""
    few = min(_FEW_OPENERS, limit)
    found = 0
    for opener in (b"{", b"["):
        at = line.find(opener)
        while at >= 0:
            found += 1
            if found > few:
                return line.count(b"[") + line.count(b"{") <= limit
            at = line.find(opener, at + 1)
    return True


def _head(line: bytes) -> tuple[str | None, int | None]:
    """A frame's type and id read from its leading fields, when they are there plainly."""
    head = _HEAD.match(line)
    if head is None:
        return None, None
    kind = _HEAD_TYPE.search(head.group(1))
    found = _HEAD_ID.search(head.group(1))
    return (
        kind.group(1).decode() if kind is not None else None,
        int(found.group(1)) if found is not None else None,
    )


class LineSplitter:
    """Split a byte stream into LF-terminated lines of at most ``max_bytes`` (LF excluded).

    Only LF splits (U+2028 and CR are data). A longer line is skipped up to its LF and
    reported once through ``oversized`` so the reader never buffers without bound.
    """

    def __init__(self, max_bytes: int = MAX_FRAME_BYTES) -> None:
        self.max_bytes = max_bytes
        self._parts: list[bytes] = []
        self._size = 0
        self._skipping = False

    def feed(self, data: bytes) -> list[bytes | None]:
        """Lines completed by ``data``; ``None`` marks one skipped oversized line."""
        out: list[bytes | None] = []
        start = 0
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                break
            piece = data[start:nl]
            start = nl + 1
            if self._skipping:
                self._skipping = False
                self._parts, self._size = [], 0
                continue
            if self._size + len(piece) > self.max_bytes:
                out.append(None)
            else:
                out.append(b"".join([*self._parts, piece]) if self._parts else piece)
            self._parts, self._size = [], 0
        rest = data[start:]
        if rest and not self._skipping:
            self._size += len(rest)
            if self._size > self.max_bytes:
                self._skipping = True
                self._parts, self._size = [], 0
                out.append(None)
            else:
                self._parts.append(rest)
        return out

    @property
    def pending(self) -> int:
        """Bytes of an unfinished line held (0 while skipping an oversized one)."""
        return self._size
