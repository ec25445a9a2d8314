"""The sidecar protocol: versioned newline-delimited JSON frames between Pi and Python.

The Pi extension (``pi-extension/``) and the sidecar (``persona_mind.bridge.sidecar``) speak
one JSON object per line (LF only; UTF-8; at most :data:`MAX_FRAME_BYTES` a line). Every frame
has a ``type`` tag; the rest is typed here so a bad frame is a decode error we can answer, not a
crash. ``docs/bridge.md`` is the prose version. In short::

    ext → side   {"type":"hello","protocol":1,...}
    side → ext   {"type":"ready","protocol":1,"pid":..,"tools":[..],"commands":[..]}
    either way   {"type":"request","id":7,"method":"tool","params":{..}}
                 {"type":"response","id":7,"result":..}  or  {..,"error":{"code":..,"message":..}}
                 {"type":"notify","method":"event","params":{..}}      (no answer)
                 {"type":"error","code":"malformed","message":"..","id":null}  (protocol trouble)

Each side numbers its own requests; a response answers the peer's request with that id.
Frames may carry fields this version does not know (they are ignored), so a minor addition
does not need a new :data:`PROTOCOL_VERSION`; a breaking change does, and ``hello`` with a
different version is refused with an ``error`` frame (code ``protocol_version``).

The frames and params are defined in ``_frames``, the codec in ``_frame_codec``; this module
is the protocol's one public name for both.
"""

from __future__ import annotations

from persona_mind.messages._frame_codec import (
    BadFrame,
    LineSplitter,
    decode_frame,
    encode_frame,
    nesting_exceeds,
    raw,
    response_line,
)
from persona_mind.messages._frames import (
    MAX_FRAME_BYTES,
    MAX_ID,
    MAX_NESTING,
    PROTOCOL_VERSION,
    AnyFrame,
    AppendEntryParams,
    BranchEntriesResult,
    CancelParams,
    CommandParams,
    DisplayParams,
    ErrorBody,
    ErrorCode,
    ErrorFrame,
    EventParams,
    ExtensionMethod,
    Frame,
    FrameId,
    Hello,
    Notify,
    NotifyParams,
    Ready,
    RegisterCommandsParams,
    RegisterToolsParams,
    Request,
    Response,
    SendUserMessageParams,
    SetStatusParams,
    SidecarMethod,
    ToolParams,
    ToolUpdateParams,
)

__all__ = (
    "MAX_FRAME_BYTES",
    "MAX_ID",
    "MAX_NESTING",
    "PROTOCOL_VERSION",
    "AnyFrame",
    "AppendEntryParams",
    "BadFrame",
    "BranchEntriesResult",
    "CancelParams",
    "CommandParams",
    "DisplayParams",
    "ErrorBody",
    "ErrorCode",
    "ErrorFrame",
    "EventParams",
    "ExtensionMethod",
    "Frame",
    "FrameId",
    "Hello",
    "LineSplitter",
    "Notify",
    "NotifyParams",
    "Ready",
    "RegisterCommandsParams",
    "RegisterToolsParams",
    "Request",
    "Response",
    "SendUserMessageParams",
    "SetStatusParams",
    "SidecarMethod",
    "ToolParams",
    "ToolUpdateParams",
    "decode_frame",
    "encode_frame",
    "nesting_exceeds",
    "raw",
    "response_line",
)
