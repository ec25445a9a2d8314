"""The Pi bridge: the sidecar the Pi extension starts, ``python -m persona_mind.bridge.sidecar``.

A face (docs/bridge.md): nothing in the product imports it. The package stays empty so the
sidecar's start loads nothing it does not need before ``ready``.
"""
