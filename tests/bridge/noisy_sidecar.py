"""A sidecar that first writes bad frames to the extension, then behaves (e2e fault test).

Started through ``PERSONA_MIND_SIDECAR_CMD``; proves the extension answers malformed,
unknown and non-object frames with error frames and keeps the session going.
"""

from __future__ import annotations

import os

from persona_mind.bridge.sidecar import main

BAD_LINES = (
    b"this is not json\n",
    b"[1, 2, 3]\n",
    b'{"type": "telepathy", "id": 1}\n',
    b'{"type": "notify", "method": "dance"}\n',
    b'{"type": "request", "id": 7, "method": "levitate", "params": {}}\n',
)

if __name__ == "__main__":
    for line in BAD_LINES:
        os.write(1, line)
    raise SystemExit(main())
