"""Persona: global pack store, resolver, session binding, active persona, chat plans."""

from __future__ import annotations
