"""Facts: validation, re-recording, supersession, forget, expiry; promotion; id lookup."""
